//! WGSL export: a node of a graph as one self-contained WGSL module that any shader can paste
//! in (`noisegraph wgsl`, [`export_wgsl`]). It is text, so it couples to no wgpu version.
//!
//! For a name `height` and a 2D node the module defines (vec3 / vec4 and ivec3 / ivec4 for 3D
//! and 4D nodes):
//! - `fn height(p: vec2<f32>) -> f32`: the node's value at `p`, in the coordinates of bakes
//!   (a bake samples pixel (x, y) at `origin + (x, y) * extent / size`).
//! - `fn height_precise(cell: vec2<i32>, local: vec2<f32>) -> f32`: the value at `cell +
//!   local`, precise however large `cell` is: each octave multiplies the cell and `local`
//!   (cut into whole cells and a 0.32 fixed-point fraction) by its frequency in exact
//!   fixed-point arithmetic and splits the sum into the lattice cell and offset
//!   (`shaders/export/lattice.wgsl`), so no f32 product grows with the frequency: only
//!   `local` itself and the final offset meet f32 rounding, as in a CPU bake and a point
//!   query, which split each position in f64. [`split_position`] splits an f64 position on
//!   the host.
//! - `fn height_grad(p) -> height_NoiseGrad` and `height_grad_precise(cell, local)`, when
//!   every family the node reads has an analytic gradient: the value and its derivatives
//!   with respect to the position (`d`, x y z w, 0 past the node's dims).
//!
//! Every other name in the module starts with `height_`. The CPU twin of the generated
//! functions is `crate::query::point` (what point queries run). The per-octave numbers are
//! compiled in as constants; families with a table (OpenSimplex2's gradients, wave's waves,
//! wavelet's tile) read it from an inlined `const` array when it has at most
//! [`INLINE_TABLE_FLOATS`] floats, else from one storage buffer the module declares
//! (`height_tables`, see [`TableBinding`]) whose data the export returns.

mod mapping;
pub(crate) mod rename;

use std::collections::{BTreeSet, HashMap};
use std::fmt::Write;

use crate::error::{Error, Result};
use crate::family::Lattice;
use crate::gpu::assemble::{
    declarations, library, sampler_function_of, shader_file, validate_wgsl,
};
use crate::graph::{
    octave_position, Displacement, GenerateStage, NoiseGraph, Plan, PlanOptions, StageKind,
    StageUniform, View,
};
use crate::twin::export::lattice::{fixed_constant, fixed_value};

/// Largest table inlined as a `const` array, in floats; larger ones go to the storage binding.
pub const INLINE_TABLE_FLOATS: usize = 4096;

/// Largest table the GLSL 4.50 and HLSL exports inline (as a global array), in floats; larger
/// ones go to their storage buffer. Smaller than [`INLINE_TABLE_FLOATS`]: Mesa's llvmpipe
/// (lavapipe, where CI runs them) turns every dynamic lookup of such an array into a search
/// over its elements, and measured a minute to compile OpenSimplex2 4D's 640 floats and over
/// three for wavelet's 1024-float tile of 32 (at 256, wave's default table, a few seconds).
pub const TRANSLATED_INLINE_TABLE_FLOATS: usize = 256;

/// Largest table the GLSL, HLSL and MSL exports inline (they have no storage buffer), in
/// floats: room for wavelet's default 2D tile (128 x 128, 16384) and OpenSimplex2 `smooth`'s
/// 4D candidates (20536). Larger tables (a 3D tile of 128, 2M floats)
/// would be megabytes of source that compilers take minutes and gigabytes to read; such
/// exports are refused.
pub const MAX_TRANSLATED_TABLE_FLOATS: usize = 32768;

/// What to export.
#[derive(Debug, Clone)]
pub struct WgslOptions {
    /// The name of the main function and the prefix of every other name (`height` gives
    /// `height`, `height_precise`, `height_grad`, `height_...`). A WGSL identifier.
    pub name: String,
    /// The node to export (the graph's output when `None`).
    pub node: Option<String>,
    /// `@group` and `@binding` of the table buffer, for graphs that need one.
    pub table_binding: [u32; 2],
}

impl WgslOptions {
    /// Exports the graph's output as `name`, tables (if any) at group 0, binding 0.
    pub fn new(name: impl Into<String>) -> Self {
        WgslOptions {
            name: name.into(),
            node: None,
            table_binding: [0, 0],
        }
    }
}

/// The storage buffer an exported module reads its large tables from: bind `data` (f32,
/// little-endian, read-only storage) at `@group(group) @binding(binding)`.
#[derive(Debug, Clone, PartialEq)]
pub struct TableBinding {
    /// The bind group index.
    pub group: u32,
    /// The binding index within the group.
    pub binding: u32,
    /// The buffer's contents.
    pub data: Vec<f32>,
}

/// An exported module.
#[derive(Debug, Clone)]
pub struct WgslModule {
    /// The WGSL source.
    pub source: String,
    /// The main function's name (the prefix of every other name).
    pub name: String,
    /// The node exported.
    pub node: String,
    /// The node's dimension: the functions take vecN positions.
    pub dims: u32,
    /// Why `<name>_grad` is missing (the node and family without a gradient), or `None`
    /// when the module defines it.
    pub no_gradient: Option<String>,
    /// The storage buffer the module reads, when a table is too large to inline.
    pub tables: Option<TableBinding>,
}

/// Splits an f64 position for the precise form: `cell` = floor(p) and `local` = p - cell
/// (in [0, 1)), per axis. An error past the i32 range (|p| >= 2^31).
pub fn split_position(p: &[f64]) -> Result<(Vec<i32>, Vec<f32>)> {
    let mut cell = Vec::with_capacity(p.len());
    let mut local = Vec::with_capacity(p.len());
    for (a, &v) in p.iter().enumerate() {
        let fl = v.floor();
        if !(-2_147_483_648.0..2_147_483_648.0).contains(&fl) {
            return Err(Error::InvalidRequest(format!(
                "position {v} on axis {a} is outside the i32 cells of the precise form (|p| < 2^31)"
            )));
        }
        cell.push(fl as i32);
        local.push((v - fl) as f32);
    }
    Ok((cell, local))
}

/// Checks that `name` is a WGSL identifier usable as the module's prefix.
fn check_name(name: &str) -> Result<()> {
    let valid = name.len() <= 64
        && name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !name.ends_with('_')
        && validate_wgsl(&format!("fn {name}() -> f32 {{ return 0.0; }}")).is_ok();
    if valid {
        Ok(())
    } else {
        Err(Error::InvalidRequest(format!(
            "name '{name}' is not usable as a WGSL function name (letters, digits and _, starting \
             with a letter, not ending with _, at most 64 characters, not a WGSL keyword)"
        )))
    }
}

/// Exports `options.node` of `graph` as a WGSL module (see the module docs). The module is
/// validated with naga before it is returned.
pub fn export_wgsl(graph: &NoiseGraph, options: &WgslOptions) -> Result<WgslModule> {
    export_wgsl_inlining(graph, options, INLINE_TABLE_FLOATS)
}

/// [`export_wgsl`] with tables of up to `inline_floats` floats inlined, larger ones in the
/// storage buffer (the GLSL 4.50 and HLSL exports take [`TRANSLATED_INLINE_TABLE_FLOATS`]).
pub(crate) fn export_wgsl_inlining(
    graph: &NoiseGraph,
    options: &WgslOptions,
    inline_floats: usize,
) -> Result<WgslModule> {
    check_name(&options.name)?;
    let plan = Plan::with_options(graph, options.node.as_deref(), PlanOptions { fuse: false })?;
    // The node asked for (a mapping node's stage is its source's, under the mapping).
    let node = options.node.clone().unwrap_or_else(|| graph.output.clone());
    let dims = graph.dims_of(&node);
    let tables = TableForm::Binding(options.table_binding, inline_floats);
    let mut module = Module::new(&options.name, &plan, tables);
    module.node = node.clone();
    let source = module.assemble(dims);
    validate_wgsl(&source).map_err(|e| {
        Error::Gpu(format!(
            "the exported module failed validation (a bug): {e}"
        ))
    })?;
    Ok(WgslModule {
        source,
        name: options.name.clone(),
        node,
        dims,
        no_gradient: module.no_gradient.clone(),
        tables: (!module.table_data.is_empty()).then(|| TableBinding {
            group: options.table_binding[0],
            binding: options.table_binding[1],
            data: module.table_data.clone(),
        }),
    })
}

/// Where an export's tables live.
#[derive(Debug, Clone, Copy)]
enum TableForm {
    /// Up to the given number of floats ([`INLINE_TABLE_FLOATS`] for WGSL) in a
    /// `var<private>` array (what SPIR-V indexes fastest), larger ones in the storage buffer
    /// at `@group(g) @binding(b)`.
    Binding([u32; 2], usize),
    /// Every table in a module-scope `const` array, whatever its size: the form the other
    /// languages' back ends turn into plain constant arrays (GLSL ES and Godot have no storage
    /// buffers, and MSL has no program-scope private variables).
    Const,
}

/// The WGSL the other languages are translated from (`crate::export::shader`): the module of
/// [`export_wgsl`] with every table an inlined `const` array, so that it declares no bindings.
/// Returns the source, the node exported, its dims and why it has no gradient (if so).
pub(crate) fn export_wgsl_inlined(
    graph: &NoiseGraph,
    name: &str,
    node: Option<&str>,
) -> Result<WgslModule> {
    check_name(name)?;
    let plan = Plan::with_options(graph, node, PlanOptions { fuse: false })?;
    let node = node.map_or_else(|| graph.output.clone(), str::to_string);
    let dims = graph.dims_of(&node);
    let mut module = Module::new(name, &plan, TableForm::Const);
    module.node = node.clone();
    let source = module.assemble(dims);
    if let Some(inst) = module.instances.iter().find(|i| {
        i.table
            .as_ref()
            .is_some_and(|t| t.len() > MAX_TRANSLATED_TABLE_FLOATS)
    }) {
        let len = inst.table.as_ref().map_or(0, Vec::len);
        return Err(Error::InvalidRequest(format!(
            "node '{node}' reads a table of {len} floats ({}); the GLSL, HLSL and MSL exports \
             inline tables of at most {MAX_TRANSLATED_TABLE_FLOATS} floats (a smaller tile or \
             fewer waves fits; the WGSL export reads any size from its storage buffer)",
            inst.family
        )));
    }
    Ok(WgslModule {
        source,
        name: name.to_string(),
        node,
        dims,
        no_gradient: module.no_gradient.clone(),
        tables: None,
    })
}

/// A family's shader files renamed under one prefix, with its table if it reads one.
struct Instance {
    family: &'static str,
    /// The prefix its declarations get (`<name>_` when shared, `<name>_t<i>_` for a table).
    prefix: String,
    table: Option<Vec<f32>>,
}

/// The export of one plan under one name.
struct Module<'a> {
    name: String,
    plan: &'a Plan,
    tables: TableForm,
    /// Library, template-declaration and export-helper names to their prefixed forms.
    lib: HashMap<String, String>,
    instances: Vec<Instance>,
    /// Per stage: the instance its family code comes from (generate stages).
    stage_instance: Vec<Option<usize>>,
    table_data: Vec<f32>,
    no_gradient: Option<String>,
    /// The node exported.
    node: String,
}

/// The source every exported module starts from: the library (with the operations and
/// their op codes, `lib/ops.wgsl`), the stage and point-wise templates' declarations and the
/// precise form's lattice arithmetic.
fn shared_source() -> String {
    let mut s = library();
    for file in ["stage.wgsl", "combine.wgsl"] {
        s.push_str(&format!(
            "// ---- {file} (declarations)\n{}\n",
            declarations(file)
        ));
    }
    let file = "export/lattice.wgsl";
    let text = shader_file(file).unwrap_or_else(|| panic!("{file} is embedded"));
    s.push_str(&format!("// ---- {file}\n{text}\n"));
    s
}

/// An f32 as a WGSL literal: the shortest decimal that reads back to it, with the `f` suffix
/// (no rounding through a wider type on the way).
fn f32_lit(v: f32) -> String {
    format!("{v:?}f")
}

/// `[a, b, c, d]` as a WGSL vec4 of floats (see [`f32_lit`]).
fn vec4f(v: [f32; 4]) -> String {
    format!(
        "vec4<f32>({}, {}, {}, {})",
        f32_lit(v[0]),
        f32_lit(v[1]),
        f32_lit(v[2]),
        f32_lit(v[3])
    )
}

fn vec4i(v: [i32; 4]) -> String {
    format!("vec4<i32>({}, {}, {}, {})", v[0], v[1], v[2], v[3])
}

const AXES: [&str; 4] = ["x", "y", "z", "w"];

impl<'a> Module<'a> {
    fn new(name: &str, plan: &'a Plan, tables: TableForm) -> Self {
        let lib = rename::declared_names(&shared_source())
            .into_iter()
            .map(|n| (n.clone(), format!("{name}_{n}")))
            .collect();
        let mut module = Module {
            name: name.to_string(),
            plan,
            tables,
            lib,
            instances: Vec::new(),
            stage_instance: Vec::new(),
            table_data: Vec::new(),
            no_gradient: None,
            node: plan.stages[plan.target].node.clone(),
        };
        for stage in &plan.stages {
            let instance = match &stage.kind {
                StageKind::Generate(g) => Some(module.instance_of(g)),
                StageKind::Combine { .. } => None,
            };
            module.stage_instance.push(instance);
            if let StageKind::Generate(g) = &stage.kind {
                if module.no_gradient.is_none()
                    && g.family
                        .wgsl_grad_call(g.dims(), &g.source.params)
                        .is_none()
                {
                    module.no_gradient = Some(format!(
                        "node '{}': {}",
                        stage.node,
                        g.family.no_gradient_reason(g.dims(), &g.source.params)
                    ));
                }
            }
        }
        module
    }

    /// The instance of a chain's family code: shared for families without a table, one per
    /// distinct table otherwise.
    fn instance_of(&mut self, chain: &GenerateStage) -> usize {
        let family = chain.family.name();
        let table = chain.aux_data(self.plan.seed);
        let found = self.instances.iter().position(|inst| {
            inst.family == family
                && match (&inst.table, &table) {
                    (None, None) => true,
                    (Some(a), Some(b)) => {
                        a.len() == b.len()
                            && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
                    }
                    _ => false,
                }
        });
        if let Some(i) = found {
            return i;
        }
        let prefix = match table {
            None => format!("{}_", self.name),
            Some(_) => format!("{}_t{}_", self.name, self.instances.len()),
        };
        self.instances.push(Instance {
            family,
            prefix,
            table,
        });
        self.instances.len() - 1
    }

    /// The rename map of an instance's files: the library's names and its own.
    fn instance_map(&self, index: usize) -> HashMap<String, String> {
        let inst = &self.instances[index];
        let mut map = self.lib.clone();
        for file in family_files(inst.family) {
            for n in rename::declared_names(shader_file(file).expect("embedded")) {
                map.insert(n.clone(), format!("{}{n}", inst.prefix));
            }
        }
        map
    }

    /// A library (or template-declaration, or helper) name as the module spells it.
    fn lib(&self, name: &str) -> String {
        self.lib
            .get(name)
            .cloned()
            .unwrap_or_else(|| panic!("{name} is not a library name"))
    }

    fn assemble(&mut self, dims: u32) -> String {
        let mut s = String::new();
        self.header(&mut s, dims);
        s.push_str(&rename::rename(&shared_source(), &self.lib));
        // Family files: the shared ones once (dependencies first), then each table instance.
        let mut shared_files: Vec<&str> = Vec::new();
        for inst in self.instances.iter().filter(|i| i.table.is_none()) {
            for file in family_files(inst.family) {
                if !shared_files.contains(file) {
                    shared_files.push(file);
                }
            }
        }
        let mut shared_map = self.lib.clone();
        for file in &shared_files {
            for n in rename::declared_names(shader_file(file).expect("embedded")) {
                shared_map.insert(n.clone(), format!("{}_{n}", self.name));
            }
        }
        for file in &shared_files {
            let text = shader_file(file).expect("embedded");
            let _ = write!(s, "// ---- {file}\n{}\n", rename::rename(text, &shared_map));
        }
        for index in 0..self.instances.len() {
            if self.instances[index].table.is_some() {
                s.push_str(&self.table_instance(index));
            }
        }
        s.push_str("// ---- the graph\n");
        let stage_count = self.plan.stages.len();
        for index in 0..stage_count {
            match &self.plan.stages[index].kind {
                StageKind::Generate(g) => s.push_str(&self.generate_stage(index, g)),
                StageKind::Combine { op, .. } => {
                    if let Some((table, count)) = op.curve_table() {
                        s.push_str(&self.curve_stage(index, &table[..2 * count as usize]));
                    }
                }
            }
        }
        s.push_str(&self.entry_points(dims));
        s
    }

    fn header(&self, s: &mut String, dims: u32) {
        let n = &self.name;
        let node = &self.node;
        let (vf, vi) = (vec_type("f32", dims), vec_type("i32", dims));
        let _ = writeln!(
            s,
            "// noisegraph {} WGSL export: node '{node}' as `{n}`.\n\
             //\n\
             // fn {n}(p: {vf}) -> f32\n\
             //     The node's value at p, in the coordinates of bakes (pixel (x, y) of a bake\n\
             //     samples origin + (x, y) * extent / size).\n\
             // fn {n}_precise(cell: {vi}, local: {vf}) -> f32\n\
             //     The value at cell + local, precise for any i32 cell: each octave splits\n\
             //     (cell + local) * frequency into its lattice cell and offset in exact fixed\n\
             //     point; split f64 positions on the host into cell = floor(p),\n\
             //     local = p - floor(p) (then only local's f32 rounding remains).",
            env!("CARGO_PKG_VERSION")
        );
        match &self.no_gradient {
            None => {
                let _ = writeln!(
                    s,
                    "// fn {n}_grad(p: {vf}) -> {n}_NoiseGrad\n\
                     // fn {n}_grad_precise(cell: {vi}, local: {vf}) -> {n}_NoiseGrad\n\
                     //     The value and its gradient d (x, y, z, w; 0 past {dims}D) with respect to p."
                );
            }
            Some(why) => {
                let _ = writeln!(s, "// No {n}_grad: {why}.");
            }
        }
        let binding = match self.tables {
            TableForm::Binding(binding, _) => Some(binding),
            TableForm::Const => None,
        };
        let inline_floats = self.inline_floats();
        let needs_buffer = self
            .instances
            .iter()
            .any(|i| i.table.as_ref().is_some_and(|t| t.len() > inline_floats));
        if let (Some([g, b]), true) = (binding, needs_buffer) {
            let _ = writeln!(
                s,
                "//\n// Needs one binding: @group({g}) @binding({b}) var<storage, read> {n}_tables:\n\
                 // array<f32>, holding the table data the export wrote beside this module."
            );
        } else {
            let _ = writeln!(s, "//\n// Needs no bindings.");
        }
        let _ = writeln!(
            s,
            "// Every other name starts with `{n}_`. Generated: do not edit; export again instead.\n"
        );
    }

    /// The largest table inlined (every table with [`TableForm::Const`]).
    fn inline_floats(&self) -> usize {
        match self.tables {
            TableForm::Binding(_, floats) => floats,
            TableForm::Const => usize::MAX,
        }
    }

    /// One table instance: its family files under the instance prefix, `aux[i]` read through
    /// an accessor over an inlined constant array or the shared table buffer.
    fn table_instance(&mut self, index: usize) -> String {
        let map = self.instance_map(index);
        let inst = &self.instances[index];
        let prefix = inst.prefix.clone();
        let table = inst.table.clone().expect("a table instance");
        let accessor = format!("{prefix}aux");
        let mut s = format!("// ---- {} table instance {prefix}\n", inst.family);
        if let TableForm::Const = self.tables {
            let values: Vec<String> = table.iter().map(|&v| f32_lit(v)).collect();
            let _ = writeln!(
                s,
                "const {prefix}table = array<f32, {}>({});\n\
                 fn {accessor}(i: u32) -> f32 {{ return {prefix}table[i]; }}",
                table.len(),
                values.join(", ")
            );
        } else if table.len() <= self.inline_floats() {
            let values: Vec<String> = table.iter().map(|&v| f32_lit(v)).collect();
            let _ = writeln!(
                s,
                "var<private> {prefix}table: array<f32, {}> = array<f32, {}>({});\n\
                 fn {accessor}(i: u32) -> f32 {{ return {prefix}table[i]; }}",
                table.len(),
                table.len(),
                values.join(", ")
            );
        } else {
            let base = self.table_data.len();
            if base == 0 {
                let TableForm::Binding([g, b], _) = self.tables else {
                    unreachable!("checked above")
                };
                let _ = writeln!(
                    s,
                    "@group({g}) @binding({b}) var<storage, read> {}_tables: array<f32>;",
                    self.name
                );
            }
            self.table_data.extend_from_slice(&table);
            let _ = writeln!(
                s,
                "fn {accessor}(i: u32) -> f32 {{ return {}_tables[{base}u + i]; }}",
                self.name
            );
        }
        for file in family_files(self.instances[index].family) {
            let text = rename::rename(shader_file(file).expect("embedded"), &map);
            let text = rename::rewrite_indexing(&text, "aux", &accessor);
            let _ = write!(s, "// ---- {file}\n{text}\n");
        }
        s
    }

    /// The functions of one generate stage: its family call, its value in both position
    /// forms, and its gradient in both when the family has one.
    fn generate_stage(&self, index: usize, chain: &GenerateStage) -> String {
        let p = format!("{}_s{index}", self.name);
        let uniform = chain.uniforms(self.plan.seed, &View::image(1, 1));
        let instance = self.stage_instance[index].expect("a generate stage");
        let map = if self.instances[instance].table.is_some() {
            self.instance_map(instance)
        } else {
            let mut map = self.lib.clone();
            for file in family_files(chain.family.name()) {
                for n in rename::declared_names(shader_file(file).expect("embedded")) {
                    map.insert(n.clone(), format!("{}_{n}", self.name));
                }
            }
            map
        };
        let accessor = format!("{}aux", self.instances[instance].prefix);
        let call_text = |call: String| {
            let call = rename::rename(&call, &map);
            rename::rewrite_indexing(&call, "aux", &accessor)
        };
        let (dims, params) = (chain.dims(), &chain.source.params);
        let mut s = format!(
            "// stage {index}: node '{}'\n",
            self.plan.stages[index].node
        );
        let fam = uniform.family;
        let _ = writeln!(
            s,
            "const {p}_family = array<vec4<f32>, 4>({}, {}, {}, {});",
            vec4f([fam[0], fam[1], fam[2], fam[3]]),
            vec4f([fam[4], fam[5], fam[6], fam[7]]),
            vec4f([fam[8], fam[9], fam[10], fam[11]]),
            vec4f([fam[12], fam[13], fam[14], fam[15]])
        );
        let family_const = format!("{p}_family");
        s.push_str(&sampler_function_of(
            &format!("{p}_sample"),
            chain,
            &family_const,
            &call_text(chain.family.wgsl_call(dims, params)),
            "f32",
        ));
        let grad_call = chain.family.wgsl_grad_call(dims, params);
        if let Some(call) = &grad_call {
            s.push_str(&sampler_function_of(
                &format!("{p}_sample_grad"),
                chain,
                &family_const,
                &call_text(call.clone()),
                &self.lib("NoiseGrad"),
            ));
        }
        for k in 0..chain.octave_count() {
            s.push_str(&self.lattice_function(&p, chain, k));
        }
        let weighted = chain
            .fractal
            .as_ref()
            .is_some_and(|f| f.derivative_weight != 0.0);
        if weighted && grad_call.is_some() {
            s.push_str(&crate::gpu::assemble::hessian_function(
                &format!("{p}_hessian"),
                &format!("{p}_sample_grad"),
                &self.lib("hessian_column"),
                dims,
            ));
        }
        let warped = !chain.displace.is_empty();
        for precise in [false, true] {
            s.push_str(&self.stage_value(&p, chain, &uniform, warped, precise));
            if grad_call.is_some() && self.no_gradient.is_none() {
                s.push_str(&self.stage_grad(&p, chain, &uniform, warped, precise));
            }
        }
        if chain.mapping.is_some() {
            s.push_str(&mapping::map_functions(&p, &uniform.mapping, |n| {
                self.lib(n)
            }));
        }
        s
    }

    /// `<p>_lattice<k>(cell, fraction)`: octave k's lattice cell and local offset (input
    /// space) of the position `cell + fraction * 2^-32` (an integer cell and a 0.32 fixed-point
    /// fraction), plus the octave's own offset (the node's offsets and the octave shift), all
    /// in exact fixed point: only the local offset's conversion to f32 rounds.
    fn lattice_function(&self, p: &str, chain: &GenerateStage, k: u32) -> String {
        let dims = chain.dims() as usize;
        let lattice = chain.family.lattice(chain.dims(), &chain.source.params);
        let to_lattice = lattice.to_lattice(chain.dims());
        let to_input = lattice.to_input(chain.dims());
        let freq = chain.octave_frequency(k);
        // The octave's own offset: octave_position of position 0, in lattice coordinates.
        let offset = octave_position(chain.sample_base([0.0; 4]), freq, k);
        let lib = |n: &str| self.lib(n);
        let mut s = format!(
            "fn {p}_lattice{k}(cell: vec4<i32>, fraction: vec4<u32>) -> {} {{\n",
            lib("Lattice")
        );
        for (a, row) in to_lattice.iter().enumerate().take(dims) {
            let start: f64 = (0..dims).map(|b| row[b] * offset[b]).sum();
            let [whole, fraction] = fixed_value(start);
            let mut sum = format!("vec2<u32>({whole}u, {fraction}u)");
            let mut first = whole == 0 && fraction == 0;
            for b in 0..dims {
                let factor = row[b] * freq[b];
                if factor == 0.0 {
                    continue;
                }
                let [ki, kh, kl] = fixed_constant(factor);
                let term = if kh == 0 && kl == 0 {
                    format!("vec2<u32>(bitcast<u32>(cell.{}) * {ki}u, 0u)", AXES[b])
                } else {
                    format!(
                        "{}(cell.{}, vec3<u32>({ki}u, {kh}u, {kl}u))",
                        lib("lattice_mul"),
                        AXES[b]
                    )
                };
                sum = if first {
                    term
                } else {
                    format!("{}({sum}, {term})", lib("lattice_add"))
                };
                // The fraction's share, fraction * factor. The encoding holds factor + m 2^32
                // (its integer part taken mod 2^32): for an integer cell that vanishes mod
                // 2^32, for the fraction it adds m * fraction whole cells, taken back here.
                let mut share = format!(
                    "{}(fraction.{}, vec3<u32>({ki}u, {kh}u, {kl}u))",
                    lib("lattice_mul_fraction"),
                    AXES[b]
                );
                let m = ((ki as f64 - factor.floor()) / 4_294_967_296.0).round();
                let m = m.rem_euclid(4_294_967_296.0) as u64 as u32;
                if m != 0 {
                    share = format!("({share} - vec2<u32>(fraction.{} * {m}u, 0u))", AXES[b]);
                }
                sum = format!("{}({sum}, {share})", lib("lattice_add"));
                first = false;
            }
            let _ = writeln!(s, "    let s{a} = {sum};");
        }
        let cells: Vec<String> = (0..4)
            .map(|a| {
                if a < dims {
                    format!("{}(s{a})", lib("lattice_cell"))
                } else {
                    "0".to_string()
                }
            })
            .collect();
        let fractions: Vec<String> = (0..dims)
            .map(|a| format!("{}(s{a})", lib("lattice_fraction")))
            .collect();
        let _ = writeln!(s, "    let r = vec4<f32>({});", pad(&fractions, "0.0"));
        let local: Vec<String> = (0..dims)
            .map(|a| {
                if matches!(lattice, Lattice::Cubic) {
                    format!("r.{}", AXES[a])
                } else {
                    let terms: Vec<String> = (0..dims)
                        .filter(|&b| to_input[a][b] != 0.0)
                        .map(|b| format!("{} * r.{}", f32_lit(to_input[a][b] as f32), AXES[b]))
                        .collect();
                    terms.join(" + ")
                }
            })
            .collect();
        let _ = writeln!(
            s,
            "    return {}(vec4<i32>({}), vec4<f32>({}));\n}}",
            lib("Lattice"),
            cells.join(", "),
            pad(&local, "0.0")
        );
        s
    }

    /// The stage's value: `<p>(p[, d])` (simple form) or `<p>_precise(cell, p[, d])`.
    fn stage_value(
        &self,
        p: &str,
        chain: &GenerateStage,
        u: &StageUniform,
        warped: bool,
        precise: bool,
    ) -> String {
        let (name, args) = stage_signature(p, precise, warped, false);
        if chain.carries_state() {
            return self.state_value(p, chain, u, warped, precise);
        }
        let mut s = format!("fn {name}({args}) -> f32 {{\n    var sum = 0.0;\n");
        let kind = chain.fractal_code();
        for k in 0..chain.octave_count() {
            let (cell, local) = self.octave_position(p, chain, u, k, warped, precise, &mut s);
            let o = &u.octaves[k as usize];
            let _ = writeln!(
                s,
                "    sum += {} * {}({p}_sample({cell}, {local}, {}u, {}), {kind}u);",
                f32_lit(o.amp),
                self.lib("fractal_remap"),
                o.seed,
                vec4i(o.period)
            );
        }
        let _ = writeln!(s, "    return sum * {};\n}}", f32_lit(u.scalars[0]));
        s
    }

    /// The stage's value and gradient with respect to the position.
    fn stage_grad(
        &self,
        p: &str,
        chain: &GenerateStage,
        u: &StageUniform,
        warped: bool,
        precise: bool,
    ) -> String {
        let (name, mut args) = stage_signature(p, precise, warped, true);
        if chain.carries_state() {
            return self.state_grad(p, chain, u, warped, precise);
        }
        let mapped = chain.mapping.is_some();
        if mapped {
            args.push_str(", jm: mat4x4<f32>");
        }
        let grad = self.lib("NoiseGrad");
        let mut s = format!(
            "fn {name}({args}) -> {grad} {{\n    var value = 0.0;\n    var gradient = vec4<f32>(0.0);\n"
        );
        let kind = chain.fractal_code();
        for k in 0..chain.octave_count() {
            let (cell, local) = self.octave_position(p, chain, u, k, warped, precise, &mut s);
            let o = &u.octaves[k as usize];
            let freq = vec4f(chain.octave_frequency(k).map(|f| f as f32));
            let _ = writeln!(
                s,
                "    let g{k} = {p}_sample_grad({cell}, {local}, {}u, {});",
                o.seed,
                vec4i(o.period)
            );
            let _ = writeln!(
                s,
                "    value += {} * {}(g{k}.value, {kind}u);",
                f32_lit(o.amp),
                self.lib("fractal_remap")
            );
            let chain_rule = octave_chain_rule(k, &freq, o.warp, mapped, warped);
            let _ = writeln!(
                s,
                "    gradient += ({} * {}(g{k}.value, {kind}u)) * ({chain_rule});",
                f32_lit(o.amp),
                self.lib("fractal_remap_slope")
            );
        }
        let norm = f32_lit(u.scalars[0]);
        let _ = writeln!(
            s,
            "    return {grad}(value * {norm}, gradient * {norm});\n}}"
        );
        s
    }

    /// [`Self::stage_value`] of a chain that carries a state: each octave a step of
    /// `multifractal_octave` (lib/multifractal.wgsl) from the state of the one before.
    fn state_value(
        &self,
        p: &str,
        chain: &GenerateStage,
        u: &StageUniform,
        warped: bool,
        precise: bool,
    ) -> String {
        let (name, args) = stage_signature(p, precise, warped, false);
        let mut s = format!(
            "fn {name}({args}) -> f32 {{\n    var s = {}();\n",
            self.lib("multifractal_start")
        );
        let kind = chain.fractal_code();
        let [norm, offset, weighting, _] = u.scalars;
        let step = self.lib("multifractal_octave");
        let tail = format!("{kind}u, {}, {}", f32_lit(offset), f32_lit(weighting));
        for k in 0..chain.octave_count() {
            let (cell, local) = self.octave_position(p, chain, u, k, warped, precise, &mut s);
            let o = &u.octaves[k as usize];
            let sample = format!("({cell}, {local}, {}u, {})", o.seed, vec4i(o.period));
            let amp = f32_lit(o.amp);
            if weighting != 0.0 {
                let _ = writeln!(s, "    let n{k} = {p}_sample_grad{sample};");
                let _ = writeln!(s, "    s = {step}(s, n{k}.value, n{k}.d, {amp}, {tail});");
            } else {
                let _ = writeln!(
                    s,
                    "    s = {step}(s, {p}_sample{sample}, vec4<f32>(0.0), {amp}, {tail});"
                );
            }
        }
        let _ = writeln!(s, "    return s.sum * {};\n}}", f32_lit(norm));
        s
    }

    /// [`Self::stage_grad`] of a chain that carries a state: `multifractal_octave_grad` per
    /// octave, with the noise's Hessian (`<p>_hessian`) under a derivative weight.
    fn state_grad(
        &self,
        p: &str,
        chain: &GenerateStage,
        u: &StageUniform,
        warped: bool,
        precise: bool,
    ) -> String {
        let (name, mut args) = stage_signature(p, precise, warped, true);
        let mapped = chain.mapping.is_some();
        if mapped {
            args.push_str(", jm: mat4x4<f32>");
        }
        let grad = self.lib("NoiseGrad");
        let mut s = format!(
            "fn {name}({args}) -> {grad} {{\n    var s = {}();\n",
            self.lib("multifractal_grad_start")
        );
        let kind = chain.fractal_code();
        let [norm, offset, weighting, _] = u.scalars;
        let step = self.lib("multifractal_octave_grad");
        let zero = "vec4<f32>(0.0)";
        for k in 0..chain.octave_count() {
            let (cell, local) = self.octave_position(p, chain, u, k, warped, precise, &mut s);
            let o = &u.octaves[k as usize];
            let freq = chain.octave_frequency(k).map(|f| f as f32);
            let _ = writeln!(s, "    let c{k} = {cell};\n    let l{k} = {local};");
            let sample = format!("(c{k}, l{k}, {}u, {})", o.seed, vec4i(o.period));
            let _ = writeln!(s, "    let g{k} = {p}_sample_grad{sample};");
            let f = vec4f(freq);
            let chain_rule = octave_chain_rule(k, &f, o.warp, mapped, warped);
            let hd = if weighting != 0.0 {
                // d local / d p_b: the frequency on axis b (in a mapped stage the frequency
                // times row b of jm, d s / d p_b) plus the warp's Jacobian (row b of jd, whose
                // column c is the gradient of displacement c).
                let columns: Vec<String> = (0..4)
                    .map(|b| {
                        let mut e = [0.0f32; 4];
                        e[b] = freq[b];
                        let e = if mapped {
                            format!("{f} * transpose(jm)[{b}]")
                        } else {
                            vec4f(e)
                        };
                        if warped {
                            format!("{e} + {} * transpose(jd)[{b}]", vec4f(o.warp))
                        } else {
                            e
                        }
                    })
                    .collect();
                format!("{p}_hessian{sample} * mat4x4<f32>({})", columns.join(", "))
            } else {
                format!("mat4x4<f32>({zero}, {zero}, {zero}, {zero})")
            };
            let _ = writeln!(
                s,
                "    s = {step}(s, {grad}(g{k}.value, {chain_rule}), g{k}.d, {hd}, {}, {kind}u, {}, {});",
                f32_lit(o.amp),
                f32_lit(offset),
                f32_lit(weighting)
            );
        }
        let norm = f32_lit(norm);
        let _ = writeln!(
            s,
            "    return {grad}(s.sum.value * {norm}, s.sum.d * {norm});\n}}"
        );
        s
    }

    /// Octave `k`'s lattice cell and local expressions (declaring what they need in `s`):
    /// the octave's split of position 0 plus `p * frequency` (simple form), or the exact
    /// fixed-point split of `cell + p` (precise form: `p` is cut into whole cells and a 0.32
    /// fraction, each times the frequency exactly, so no f32 product grows with the
    /// frequency); plus `d * warp` in a warp.
    #[allow(clippy::too_many_arguments)]
    fn octave_position(
        &self,
        p: &str,
        chain: &GenerateStage,
        u: &StageUniform,
        k: u32,
        warped: bool,
        precise: bool,
        s: &mut String,
    ) -> (String, String) {
        let o = &u.octaves[k as usize];
        let warp = if warped {
            format!(" + d * {}", vec4f(o.warp))
        } else {
            String::new()
        };
        if precise {
            if k == 0 {
                // The position cell + p as whole cells and a fixed-point fraction, once for
                // every octave.
                let _ = writeln!(
                    s,
                    "    let offset = {}(p);\n    let whole = cell + offset.cell;",
                    self.lib("lattice_split_local")
                );
            }
            let _ = writeln!(s, "    let q{k} = {p}_lattice{k}(whole, offset.fraction);");
            (format!("q{k}.cell"), format!("q{k}.local{warp}"))
        } else {
            let freq = vec4f(chain.octave_frequency(k).map(|f| f as f32));
            (
                vec4i(o.cell),
                format!("{} + p * {freq}{warp}", vec4f(o.local)),
            )
        }
    }

    /// The public functions: every stage in plan order, each evaluated once.
    fn entry_points(&self, dims: u32) -> String {
        let n = &self.name;
        let (vf, vi) = (vec_type("f32", dims), vec_type("i32", dims));
        let widen = |v: &str, zero: &str, ty: &str| {
            let pad: Vec<&str> = (dims..4).map(|_| zero).collect();
            if pad.is_empty() {
                v.to_string()
            } else {
                format!("vec4<{ty}>({v}, {})", pad.join(", "))
            }
        };
        let mut s = String::new();
        let forms = [
            (n.to_string(), format!("p: {vf}"), false),
            (
                format!("{n}_precise"),
                format!("cell: {vi}, local: {vf}"),
                true,
            ),
        ];
        for (name, args, precise) in &forms {
            let _ = writeln!(s, "fn {name}({args}) -> f32 {{");
            if *precise {
                let _ = writeln!(s, "    let c = {};", widen("cell", "0", "i32"));
                let _ = writeln!(s, "    let q = {};", widen("local", "0.0", "f32"));
            } else {
                let _ = writeln!(s, "    let q = {};", widen("p", "0.0", "f32"));
            }
            for (index, stage) in self.plan.stages.iter().enumerate() {
                let _ = writeln!(
                    s,
                    "    let v{index} = {};",
                    self.stage_call(index, stage, *precise, false)
                );
            }
            let _ = writeln!(s, "    return v{};\n}}", self.plan.target);
        }
        if self.no_gradient.is_none() {
            let grad = self.lib("NoiseGrad");
            let forms = [
                (format!("{n}_grad"), format!("p: {vf}"), false),
                (
                    format!("{n}_grad_precise"),
                    format!("cell: {vi}, local: {vf}"),
                    true,
                ),
            ];
            for (name, args, precise) in &forms {
                let _ = writeln!(s, "fn {name}({args}) -> {grad} {{");
                if *precise {
                    let _ = writeln!(s, "    let c = {};", widen("cell", "0", "i32"));
                    let _ = writeln!(s, "    let q = {};", widen("local", "0.0", "f32"));
                } else {
                    let _ = writeln!(s, "    let q = {};", widen("p", "0.0", "f32"));
                }
                for (index, stage) in self.plan.stages.iter().enumerate() {
                    let _ = writeln!(
                        s,
                        "    let v{index} = {};",
                        self.stage_call(index, stage, *precise, true)
                    );
                }
                let _ = writeln!(s, "    return v{};\n}}", self.plan.target);
            }
        }
        s
    }

    /// The functions of a `curve` stage: its pieces in a constant array and the lookup over
    /// them (`twin::lib::curve::wgsl_lookup`, the grid kernel's too).
    fn curve_stage(&self, index: usize, pieces: &[[f32; 4]]) -> String {
        let p = format!("{}_s{index}_", self.name);
        let values: Vec<String> = pieces.iter().map(|&v| vec4f(v)).collect();
        let mut s = format!(
            "// stage {index}: node '{}'
const {p}pieces = array<vec4<f32>, {}>({});
",
            self.plan.stages[index].node,
            pieces.len(),
            values.join(", ")
        );
        s.push_str(&crate::twin::lib::curve::wgsl_lookup(
            &p,
            &format!("{p}pieces"),
            &format!("{}u", pieces.len() / 2),
            |n| self.lib(n),
        ));
        s
    }

    /// The expression of stage `index` inside an entry point (earlier stages are `v<i>`).
    fn stage_call(
        &self,
        index: usize,
        stage: &crate::graph::Stage,
        precise: bool,
        gradient: bool,
    ) -> String {
        let grad = self.lib("NoiseGrad");
        match &stage.kind {
            StageKind::Generate(g) => {
                let p = format!("{}_s{index}", self.name);
                let name = match (gradient, precise) {
                    (false, false) => p.clone(),
                    (false, true) => format!("{p}_precise"),
                    (true, false) => format!("{p}_grad"),
                    (true, true) => format!("{p}_grad_precise"),
                };
                let simple = match gradient {
                    false => p.clone(),
                    true => format!("{p}_grad"),
                };
                // A mapped stage runs its simple form at the mapped position (the precise
                // form's cell joined to its local part in f32 first), in gradient form with
                // the map's Jacobian as its last argument.
                let (name, position, jm) = match (&g.mapping, precise) {
                    (None, true) => (name, "c, q".to_string(), String::new()),
                    (None, false) => (name, "q".to_string(), String::new()),
                    (Some(_), _) => {
                        let at = if precise { "vec4<f32>(c) + q" } else { "q" };
                        let jm = if gradient {
                            format!(", {p}_map_jacobian({at})")
                        } else {
                            String::new()
                        };
                        (simple, format!("{p}_map({at})"), jm)
                    }
                };
                if g.displace.is_empty() {
                    return format!("{name}({position}{jm})");
                }
                let fields: Vec<usize> = g
                    .displace
                    .iter()
                    .map(|d| match d {
                        Displacement::Field(i) => *i,
                        Displacement::Inline { .. } => unreachable!("unfused plan"),
                    })
                    .collect();
                if gradient {
                    let values: Vec<String> =
                        fields.iter().map(|i| format!("v{i}.value")).collect();
                    let grads: Vec<String> = fields.iter().map(|i| format!("v{i}.d")).collect();
                    format!(
                        "{name}({position}, vec4<f32>({}), mat4x4<f32>({}){jm})",
                        pad(&values, "0.0"),
                        pad(&grads, "vec4<f32>(0.0)")
                    )
                } else {
                    let values: Vec<String> = fields.iter().map(|i| format!("v{i}")).collect();
                    format!("{name}({position}, vec4<f32>({}))", pad(&values, "0.0"))
                }
            }
            StageKind::Combine { op, inputs } if op.curve_table().is_some() => {
                let form = if gradient { "grad" } else { "value" };
                format!("{}_s{index}_curve_{form}(v{})", self.name, inputs[0])
            }
            StageKind::Combine { op, inputs } => {
                let (code, k) = op.code_and_constants();
                let k = vec4f(k);
                if gradient {
                    let args: Vec<String> = (0..3)
                        .map(|i| {
                            inputs
                                .get(i)
                                .map_or(format!("{grad}(0.0, vec4<f32>(0.0))"), |s| format!("v{s}"))
                        })
                        .collect();
                    format!(
                        "{}({code}u, {}, {k})",
                        self.lib("combine_op_grad"),
                        args.join(", ")
                    )
                } else {
                    let args: Vec<String> = (0..3)
                        .map(|i| inputs.get(i).map_or("0.0".to_string(), |s| format!("v{s}")))
                        .collect();
                    format!(
                        "{}({code}u, {}, {k})",
                        self.lib("combine_op"),
                        args.join(", ")
                    )
                }
            }
        }
    }
}

/// A stage function's name and parameters.
fn stage_signature(p: &str, precise: bool, warped: bool, gradient: bool) -> (String, String) {
    let name = match (gradient, precise) {
        (false, false) => p.to_string(),
        (false, true) => format!("{p}_precise"),
        (true, false) => format!("{p}_grad"),
        (true, true) => format!("{p}_grad_precise"),
    };
    let mut args = if precise {
        "cell: vec4<i32>, p: vec4<f32>".to_string()
    } else {
        "p: vec4<f32>".to_string()
    };
    if warped {
        args.push_str(", d: vec4<f32>");
        if gradient {
            args.push_str(", jd: mat4x4<f32>");
        }
    }
    (name, args)
}

/// `items` padded to four with `zero`, comma-separated.
fn pad(items: &[String], zero: &str) -> String {
    let mut all: Vec<String> = items.to_vec();
    while all.len() < 4 {
        all.push(zero.to_string());
    }
    all.join(", ")
}

fn vec_type(scalar: &str, dims: u32) -> String {
    format!("vec{dims}<{scalar}>")
}

/// The shader files of a family, dependencies first.
fn family_files(family: &str) -> &'static [&'static str] {
    crate::family::lookup(family)
        .expect("a registered family")
        .shader_files()
}

/// Every name an exported module under `name` defines at module scope (for tests and users
/// who check their own names against it).
pub fn module_names(module: &WgslModule) -> BTreeSet<String> {
    rename::declared_names(&module.source).into_iter().collect()
}

/// d n / d p of octave `k`'s sample `g{k}` in an exported gradient function: its gradient
/// times the octave's frequency `freq` (a WGSL vec4 expression), through the map's Jacobian
/// `jm` in a mapped stage, plus a warp's term through the displacement's Jacobian `jd`.
fn octave_chain_rule(k: u32, freq: &str, warp: [f32; 4], mapped: bool, warped: bool) -> String {
    let along = if mapped {
        format!("jm * (g{k}.d * {freq})")
    } else {
        format!("g{k}.d * {freq}")
    };
    if warped {
        format!("{along} + jd * (g{k}.d * {})", vec4f(warp))
    } else {
        along
    }
}
