//! The JSON graph format (DESIGN.md): parsing with every problem collected, and writing back.

use std::collections::HashSet;

use serde_json::{json, Map, Value};

use super::curve::{CurveMode, CurvePoints};
use super::limits::{self, MAX_SCALE};
use super::mapping::{MapKind, MappingNode};
use super::node::*;
use super::schema::{self, Category, FieldKind, FieldSpec, NodeSchema};
use super::NoiseGraph;
use crate::error::{GraphErrors, GraphIssue};
use crate::family::{self, FamilyParams, ParamKind, ParamValue};

/// The optional top-level field of a graph that the engine ignores: editors keep their own
/// data there (`noisegraph serve` writes `{"NODE_ID": [x, y], ...}`, each node's position on
/// its canvas). Any JSON value is accepted and nothing in it is checked.
pub const LAYOUT_FIELD: &str = "layout";

/// Largest octave count a fractal node accepts.
pub const MAX_OCTAVES: u32 = 32;

/// Reads one JSON object, remembering which keys were used so the rest can be reported as
/// unknown (a typo must not be silently ignored).
struct Reader<'a> {
    node: Option<String>,
    obj: &'a Map<String, Value>,
    used: Vec<&'static str>,
    issues: &'a mut Vec<GraphIssue>,
}

impl<'a> Reader<'a> {
    fn issue(&mut self, field: &str, message: impl Into<String>) {
        self.issues.push(GraphIssue {
            node: self.node.clone(),
            field: field.to_string(),
            message: message.into(),
        });
    }

    fn get(&mut self, key: &'static str) -> Option<&'a Value> {
        self.used.push(key);
        self.obj.get(key)
    }

    fn number_value(&mut self, key: &str, v: &Value) -> Option<f64> {
        match v.as_f64() {
            Some(x) if x.is_finite() => Some(x),
            _ => {
                self.issue(key, format!("must be a finite number (got {})", shown(v)));
                None
            }
        }
    }

    /// A finite number, `default` when absent.
    fn number(&mut self, key: &'static str, default: f64) -> f64 {
        match self.get(key) {
            None => default,
            Some(v) => self.number_value(key, v).unwrap_or(default),
        }
    }

    /// The number field `spec` (a `number` in the schema): its default when absent, and when
    /// out of its bounds (reported).
    fn scalar(&mut self, spec: &FieldSpec) -> f64 {
        let default = spec.default_number().unwrap_or(0.0);
        let v = self.number(spec.name, default);
        match out_of_bounds(spec, v, "a finite number") {
            Some(problem) => {
                self.issue(spec.name, problem);
                default
            }
            None => v,
        }
    }

    /// The integer field `spec`: its default when absent, and when out of its bounds
    /// (reported).
    fn integer_field(&mut self, spec: &FieldSpec) -> i64 {
        let default = spec.default_integer().unwrap_or(0);
        let v = self.integer(spec.name, default);
        match out_of_bounds(spec, v as f64, "an integer") {
            Some(problem) => {
                self.issue(spec.name, problem);
                default
            }
            None => v,
        }
    }

    /// The choice field `spec`: the index of its option (of its default when absent, and when
    /// not one of them, reported).
    fn choice(&mut self, spec: &FieldSpec) -> u32 {
        let default = match spec.default {
            Some(schema::FieldValue::Name(d)) => d,
            _ => spec.options[0],
        };
        let raw = self.get(spec.name);
        let name = match raw {
            None => default,
            Some(Value::String(s)) => s.as_str(),
            Some(_) => "",
        };
        match spec.options.iter().position(|o| *o == name) {
            Some(i) => i as u32,
            None => {
                self.issue(
                    spec.name,
                    format!(
                        "must be one of {} (got {})",
                        spec.options.join(", "),
                        raw.map(shown).unwrap_or_default()
                    ),
                );
                spec.options.iter().position(|o| *o == default).unwrap_or(0) as u32
            }
        }
    }

    fn integer(&mut self, key: &'static str, default: i64) -> i64 {
        match self.get(key) {
            None => default,
            Some(v) => match v.as_i64() {
                Some(i) => i,
                None => {
                    self.issue(key, format!("must be an integer (got {})", shown(v)));
                    default
                }
            },
        }
    }

    fn string(&mut self, key: &'static str) -> Option<String> {
        match self.get(key) {
            None => {
                self.issue(key, "is required");
                None
            }
            Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
            Some(v) => {
                self.issue(
                    key,
                    format!("must be a non-empty node id string (got {})", shown(v)),
                );
                None
            }
        }
    }

    fn string_list(&mut self, key: &'static str) -> Vec<String> {
        match self.get(key) {
            None => {
                self.issue(key, "is required");
                vec![]
            }
            Some(Value::Array(items))
                if items
                    .iter()
                    .all(|i| i.as_str().is_some_and(|s| !s.is_empty())) =>
            {
                items
                    .iter()
                    .map(|s| s.as_str().unwrap_or_default().to_string())
                    .collect()
            }
            Some(v) => {
                self.issue(
                    key,
                    format!(
                        "must be a list of non-empty node id strings (got {})",
                        shown(v)
                    ),
                );
                vec![]
            }
        }
    }

    /// A number for every axis, or a list of exactly `dims` numbers, one per axis (`dims`
    /// `None`: 1 to 4, checked later against the source's dims). Each number is finite, in
    /// [`MIN_FREQUENCY`, `limit`] when `positive` (a frequency), else in [-`limit`, `limit`]. Returns the values (axes past
    /// the list repeat its last number) and the list's length, when a list was given.
    fn per_axis(&mut self, spec: &FieldSpec, dims: Option<usize>) -> ([f64; 4], Option<usize>) {
        let key = spec.name;
        let default = spec.default_number().unwrap_or(0.0);
        // A positive lower bound makes a frequency: over 0, and at least that bound.
        let least = spec.min.filter(|m| *m > 0.0);
        let positive = least.is_some();
        let limit = spec.max.unwrap_or(f64::MAX);
        let raw: Vec<Value> = match self.get(key) {
            None => return ([default; 4], None),
            Some(Value::Array(items))
                if dims.map_or(!items.is_empty() && items.len() <= 4, |d| items.len() == d) =>
            {
                items.clone()
            }
            Some(v @ Value::Number(_)) => vec![v.clone()],
            Some(v) => {
                let expect = match dims {
                    Some(d) => format!(
                        "a number or a list of {d} numbers (one per axis of this {d}D node)"
                    ),
                    None => "a number or a list of 1 to 4 numbers".to_string(),
                };
                self.issue(key, format!("must be {expect} (got {})", shown(v)));
                return ([default; 4], None);
            }
        };
        let listed = matches!(self.obj.get(key), Some(Value::Array(_))).then_some(raw.len());
        let mut out = [default; 4];
        for (i, v) in raw.iter().enumerate() {
            match self.number_value(key, v) {
                Some(x) if positive && x <= 0.0 => {
                    self.issue(key, format!("must be greater than 0 (got {x})"));
                }
                Some(x) if least.is_some_and(|m| x < m) => {
                    self.issue(
                        key,
                        format!(
                            "must be at least {} (got {x})",
                            limits::show_limit(least.unwrap_or_default())
                        ),
                    );
                }
                Some(x) if x.abs() > limit => self.issue(key, limits::over(x, limit)),
                Some(x) => out[i] = x,
                None => {}
            }
        }
        for i in raw.len()..4 {
            out[i] = out[raw.len() - 1];
        }
        (out, listed)
    }

    /// Exactly three finite numbers within [-`limit`, `limit`] (a rotation axis); the
    /// default when absent or after an issue.
    fn triple(&mut self, spec: &FieldSpec) -> [f64; 3] {
        let default = match spec.default {
            Some(schema::FieldValue::Triple(t)) => t,
            _ => [0.0; 3],
        };
        let limit = spec.max.unwrap_or(f64::MAX);
        match self.get(spec.name) {
            None => default,
            Some(Value::Array(items)) if items.len() == 3 => {
                let mut out = default;
                for (i, v) in items.iter().enumerate() {
                    match self.number_value(spec.name, v) {
                        Some(x) if x.abs() > limit => {
                            self.issue(spec.name, limits::over(x, limit));
                            return default;
                        }
                        Some(x) => out[i] = x,
                        None => return default,
                    }
                }
                out
            }
            Some(v) => {
                self.issue(
                    spec.name,
                    format!(
                        "must be a list of three numbers [x, y, z] (got {})",
                        shown(v)
                    ),
                );
                default
            }
        }
    }

    /// Exactly two finite numbers within [-`limit`, `limit`] (remap's `from` and `to`):
    /// required where the schema says so (no range fits every source); the stand-in after
    /// an issue is the default, or [0, 1].
    fn pair(&mut self, spec: &FieldSpec) -> [f64; 2] {
        let (key, default) = (spec.name, spec.default_pair().unwrap_or([0.0, 1.0]));
        let limit = spec.max.unwrap_or(f64::MAX);
        match self.get(key) {
            None => {
                self.issue(key, "is required: a list of two numbers [a, b]");
                default
            }
            Some(Value::Array(items)) if items.len() == 2 => {
                let mut out = default;
                for (i, v) in items.iter().enumerate() {
                    match self.number_value(key, v) {
                        Some(x) if x.abs() > limit => self.issue(key, limits::over(x, limit)),
                        Some(x) => out[i] = x,
                        None => return default,
                    }
                }
                out
            }
            Some(v) => {
                self.issue(
                    key,
                    format!("must be a list of two numbers (got {})", shown(v)),
                );
                default
            }
        }
    }

    /// The points field `spec` (`curve`'s `points`): a list of `[x, y]` pairs of finite
    /// numbers, its default when absent; `None` after an issue (reported, naming the point).
    /// The count and order are [`CurvePoints::new`]'s to check.
    fn points(&mut self, spec: &FieldSpec) -> Option<Vec<[f64; 2]>> {
        let key = spec.name;
        let items = match self.get(key) {
            None => return Some(spec.default_points().unwrap_or(&[]).to_vec()),
            Some(Value::Array(items)) => items,
            Some(v) => {
                self.issue(
                    key,
                    format!("must be a list of [x, y] points (got {})", shown(v)),
                );
                return None;
            }
        };
        let most = spec.items.map_or(usize::MAX, |[_, hi]| hi as usize);
        if items.len() > most {
            // Reported before the items are read: a long list must not give an issue each.
            self.issue(
                key,
                format!("takes at most {most} points (got {})", items.len()),
            );
            return None;
        }
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let pair = match item {
                Value::Array(xy) if xy.len() == 2 => xy,
                other => {
                    self.issue(
                        key,
                        format!(
                            "point {i} must be a list of two numbers [x, y] (got {})",
                            shown(other)
                        ),
                    );
                    return None;
                }
            };
            let mut p = [0.0; 2];
            for (c, v) in pair.iter().enumerate() {
                match v.as_f64() {
                    Some(x) if x.is_finite() => p[c] = x,
                    _ => {
                        let axis = ["x", "y"][c];
                        self.issue(
                            key,
                            format!(
                                "point {i}: {axis} must be a finite number (got {})",
                                shown(v)
                            ),
                        );
                        return None;
                    }
                }
            }
            out.push(p);
        }
        Some(out)
    }

    fn finish(self) {
        let mut unknown: Vec<&String> = self
            .obj
            .keys()
            .filter(|k| !self.used.contains(&k.as_str()))
            .collect();
        unknown.sort();
        let used = self.used.clone();
        let node = self.node.clone();
        for key in unknown {
            let hint = used
                .iter()
                .filter(|u| **u != "id" && **u != "type")
                .filter(|u| key.len().abs_diff(u.len()) <= 2)
                .map(|u| (edit_distance(key, u), *u))
                .min()
                .filter(|(d, _)| *d <= 2)
                .map(|(_, u)| format!(" (did you mean '{u}'?)"))
                .unwrap_or_default();
            self.issues.push(GraphIssue {
                node: node.clone(),
                field: clipped(key),
                message: format!("unknown parameter{hint}"),
            });
        }
    }
}

/// Why `v` is outside the bounds of `spec` (`what`: "a finite number", "an integer"), worded
/// by the kind of bound: a magnitude (|x| <= limit), a lower bound, or a range.
fn out_of_bounds(spec: &FieldSpec, v: f64, what: &str) -> Option<String> {
    match (spec.min, spec.max) {
        (Some(lo), Some(hi)) if lo == -hi && v.abs() > hi => Some(limits::over(v, hi)),
        (Some(lo), None) if spec.exclusive_min && v <= lo => {
            Some(format!("must be greater than {lo} (got {v})"))
        }
        (Some(lo), None) if v < lo => Some(format!("must be at least {lo} (got {v})")),
        (Some(lo), Some(hi)) if v < lo || v > hi || (spec.exclusive_min && v == lo) => {
            Some(match spec.kind {
                FieldKind::Integer => format!("must be an integer between {lo} and {hi} (got {v})"),
                _ => format!("must be {what} in [{lo}, {hi}] (got {v})"),
            })
        }
        _ => None,
    }
}

/// The field `name` of a node kind: declared in the schema (a missing one is a bug there).
fn spec<'s>(node: &'s NodeSchema, name: &str) -> &'s FieldSpec {
    node.field(name)
        .unwrap_or_else(|| panic!("schema: {} declares no field {name}", node.type_name))
}

/// Longest text of a value or key a message quotes; the rest is elided.
const MAX_QUOTED: usize = 80;

/// `text` cut to [`MAX_QUOTED`] characters (a message must not repeat a megabyte of input).
fn clipped(text: &str) -> String {
    match text.char_indices().nth(MAX_QUOTED) {
        Some((end, _)) => format!("{}...", &text[..end]),
        None => text.to_string(),
    }
}

/// The key `quote_non_finite` wraps a bare `NaN` / `Infinity` token in: an object, so the
/// token can never pass as a number or a node id, and messages can still show it.
const NON_FINITE_KEY: &str = "\u{0}non-finite";

/// A value as a message shows it: a wrapped non-finite token as written, anything else as
/// JSON, clipped.
fn shown(v: &Value) -> String {
    match v.as_object().and_then(|o| o.get(NON_FINITE_KEY)) {
        Some(Value::String(token)) if v.as_object().is_some_and(|o| o.len() == 1) => token.clone(),
        _ => clipped(&v.to_string()),
    }
}

/// Edit distance (insertions, deletions, substitutions). The caller skips keys whose
/// length differs from `b`'s by more than 2, so a huge key costs nothing.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur: Vec<usize> = Vec::with_capacity(b.len() + 1);
    for (i, ca) in a.chars().enumerate() {
        cur.clear();
        cur.push(i + 1);
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur.push((prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

fn parse_family(r: &mut Reader, fam: &dyn family::Family, node: &NodeSchema) -> FamilyNode {
    let dims = r.integer("dims", fam.dims()[0] as i64);
    let dims = match u32::try_from(dims) {
        Ok(d) if fam.dims().contains(&d) => d,
        _ => {
            r.issue(
                "dims",
                format!("{} supports dims {:?} (got {dims})", fam.name(), fam.dims()),
            );
            fam.dims()[0]
        }
    };
    let axes = Some(dims as usize);
    let (frequency, _) = r.per_axis(spec(node, "frequency"), axes);
    let seed_offset = r.integer_field(spec(node, "seed_offset"));
    let (offset, _) = r.per_axis(spec(node, "offset"), axes);
    let z = r.scalar(spec(node, "z"));
    let w = r.scalar(spec(node, "w"));
    let period = match r.get("period") {
        None => None,
        Some(v) => {
            let items: Vec<&Value> = match v {
                Value::Array(items) if items.len() == dims as usize => items.iter().collect(),
                Value::Array(_) => {
                    r.issue(
                        "period",
                        format!("must be a positive integer number of cells, or a list of {dims} (one per axis of this {dims}D node) (got {})", shown(v)),
                    );
                    vec![]
                }
                other => vec![other],
            };
            let mut out = [0u32; 4];
            let mut ok = !items.is_empty();
            for (i, item) in items.iter().enumerate() {
                match item.as_u64() {
                    Some(p) if p >= 1 && p <= i32::MAX as u64 => out[i] = p as u32,
                    _ => {
                        r.issue("period", format!("must be a positive integer number of cells, or a list of them (got {})", shown(item)));
                        ok = false;
                    }
                }
            }
            for i in items.len().max(1)..4 {
                out[i] = out[items.len().max(1) - 1];
            }
            if ok && !fam.supports_period() {
                r.issue(
                    "period",
                    format!("{} does not support tileable output", fam.name()),
                );
                ok = false;
            }
            ok.then_some(out)
        }
    };
    let mut params = FamilyParams::default();
    for param in fam.params() {
        let field = spec(node, param.name);
        let value = match param.kind {
            ParamKind::Number { .. } => ParamValue::Number(r.scalar(field)),
            ParamKind::Integer { .. } => ParamValue::Integer(r.integer_field(field)),
            ParamKind::Choice { .. } => ParamValue::Choice(r.choice(field)),
        };
        params.values.insert(param.name.to_string(), value);
    }
    for (field, message) in fam.validate(dims, &params) {
        r.issue(&field, message);
    }
    FamilyNode {
        family: fam.name().to_string(),
        frequency,
        seed_offset,
        offset,
        dims,
        z,
        w,
        period,
        params,
    }
}

/// A fractal's per-axis `offset` list, whose length is checked against its source's dims
/// once every node is parsed: (fractal id, source id, length).
struct FractalAxes {
    node: String,
    field: &'static str,
    source: String,
    len: usize,
}

/// The node ids of each input `node` declares, in its order (see [`schema::InputSpec`]):
/// one id, or a list (of the declared length, reported otherwise).
fn parse_inputs(r: &mut Reader, node: &NodeSchema) -> Vec<Vec<String>> {
    node.inputs
        .iter()
        .map(|input| match input.count {
            schema::InputCount::One => r.string(input.name).into_iter().collect(),
            schema::InputCount::PerSourceAxis => r.string_list(input.name),
            schema::InputCount::List(n) => {
                let before = r.issues.len();
                let ids = r.string_list(input.name);
                if ids.len() != n as usize && r.issues.len() == before {
                    r.issue(
                        input.name,
                        format!("{} takes {n} inputs (got {})", node.type_name, ids.len()),
                    );
                }
                ids
            }
        })
        .collect()
}

/// The node kind of `type_name` from its fields, each read as the schema declares it.
fn parse_node(
    r: &mut Reader,
    type_name: &str,
    fractal_axes: &mut Vec<FractalAxes>,
) -> Option<NodeKind> {
    let Some(node) = schema::node_schema(type_name) else {
        let s = schema::schema();
        r.issue(
            "type",
            format!(
                "unknown node type '{type_name}' (families: {}; fractals: {}; warp; point-wise: {})",
                s.types(Category::Family).join(", "),
                s.types(Category::Fractal).join(", "),
                s.types(Category::Pointwise).join(", ")
            ) + &format!("; mappings: {}", s.types(Category::Mapping).join(", ")),
        );
        return None;
    };
    let mut inputs = parse_inputs(r, node).into_iter();
    let mut source = || {
        inputs
            .next()
            .and_then(|ids| ids.into_iter().next())
            .unwrap_or_default()
    };
    match node.category {
        Category::Family => {
            let fam = family::lookup(type_name).expect("every family kind is registered");
            Some(NodeKind::Family(parse_family(r, fam, node)))
        }
        Category::Fractal => {
            let kind = match type_name {
                "ridged" => FractalKind::Ridged,
                "billow" => FractalKind::Billow,
                "pingpong" => FractalKind::Pingpong,
                "hybrid" => FractalKind::Hybrid,
                "hetero" => FractalKind::Hetero,
                _ => FractalKind::Fbm,
            };
            let source = source();
            let octaves = r.integer_field(spec(node, "octaves"));
            let lacunarity = r.scalar(spec(node, "lacunarity"));
            let gain = r.scalar(spec(node, "gain"));
            let seed_offset = r.integer_field(spec(node, "seed_offset"));
            let (offset, listed) = r.per_axis(spec(node, "offset"), None);
            // Fields only some fractal kinds declare: 0 where the kind has none.
            let mut optional = |name: &str| node.field(name).map_or(0.0, |f| r.scalar(f));
            let derivative_weight = optional("derivative_weight");
            let signal_offset = optional("signal_offset");
            if let (Some(len), Some(node)) = (listed, &r.node) {
                fractal_axes.push(FractalAxes {
                    node: node.clone(),
                    field: "offset",
                    source: source.clone(),
                    len,
                });
            }
            Some(NodeKind::Fractal(FractalNode {
                kind,
                source,
                octaves: octaves.clamp(1, MAX_OCTAVES as i64) as u32,
                lacunarity,
                gain,
                seed_offset,
                offset,
                derivative_weight,
                signal_offset,
            }))
        }
        Category::Warp => {
            let source = source();
            let displace = inputs.next().unwrap_or_default();
            let amplitude = r.scalar(spec(node, "amplitude"));
            Some(NodeKind::Warp(WarpNode {
                source,
                displace,
                amplitude,
            }))
        }
        Category::Mapping => {
            let source = source();
            let map = mapping(r, node, type_name, &source, fractal_axes);
            Some(NodeKind::Mapping(MappingNode { source, map }))
        }
        Category::Pointwise => {
            let op = pointwise_op(r, node);
            let inputs = match op.arity() {
                0 => vec![],
                _ => inputs.next().unwrap_or_default(),
            };
            Some(NodeKind::Pointwise(PointwiseNode { op, inputs }))
        }
    }
}

/// The mapping of kind `node` with its fields, each read as the schema declares it; the
/// lengths of per-axis lists are checked against the source's dims once references resolve.
fn mapping(
    r: &mut Reader,
    node: &NodeSchema,
    type_name: &str,
    source: &str,
    axes: &mut Vec<FractalAxes>,
) -> MapKind {
    let number = |r: &mut Reader, name: &str| r.scalar(spec(node, name));
    match type_name {
        "transform" => {
            let mut per_axis = |r: &mut Reader, name: &'static str| {
                let (v, listed) = r.per_axis(spec(node, name), None);
                if let (Some(len), Some(id)) = (listed, &r.node) {
                    axes.push(FractalAxes {
                        node: id.clone(),
                        field: name,
                        source: source.to_string(),
                        len,
                    });
                }
                v
            };
            let translate = per_axis(r, "translate");
            let scale = per_axis(r, "scale");
            let rotate = number(r, "rotate");
            let axis = r.triple(spec(node, "axis"));
            if axis == [0.0; 3] {
                r.issue(
                    "axis",
                    "must not be [0, 0, 0]: give the direction to rotate about",
                );
            }
            let angle = number(r, "angle");
            MapKind::Transform {
                translate,
                scale,
                rotate,
                axis,
                angle,
            }
        }
        "sphere" => MapKind::Sphere {
            radius: number(r, "radius"),
        },
        "torus" => MapKind::Torus {
            radius_x: number(r, "radius_x"),
            radius_y: number(r, "radius_y"),
        },
        "cylinder" => MapKind::Cylinder {
            radius: number(r, "radius"),
        },
        "cube_face" => MapKind::CubeFace {
            face: r.choice(spec(node, "face")),
            radius: number(r, "radius"),
        },
        other => unreachable!("schema: mapping kind '{other}' has no construction in json.rs"),
    }
}

/// The point-wise operation of kind `node` with its fields, each read as the schema declares
/// it, and the checks that involve two of them.
fn pointwise_op(r: &mut Reader, node: &NodeSchema) -> PointwiseOp {
    let number = |r: &mut Reader, name: &str| r.scalar(spec(node, name));
    match node.type_name {
        "add" => PointwiseOp::Add,
        "sub" => PointwiseOp::Sub,
        "mul" => PointwiseOp::Mul,
        "min" => PointwiseOp::Min,
        "max" => PointwiseOp::Max,
        "mix" => PointwiseOp::Mix,
        "abs" => PointwiseOp::Abs,
        "neg" => PointwiseOp::Neg,
        "clamp" => {
            let min = number(r, "min");
            let max = number(r, "max");
            if min > max {
                r.issue("max", format!("must be >= min ({min}) (got {max})"));
            }
            PointwiseOp::Clamp { min, max }
        }
        "remap" => {
            let from = r.pair(spec(node, "from"));
            let to = r.pair(spec(node, "to"));
            if from[0] == from[1] {
                r.issue("from", "the two ends must differ");
            } else {
                let scale = (to[1] - to[0]) / (from[1] - from[0]);
                if scale.abs() > MAX_SCALE {
                    r.issue(
                        "from",
                        format!(
                            "maps a span of {} onto {}: a scale of {scale:e}, over the limit {MAX_SCALE:e} (widen from or narrow to)",
                            from[1] - from[0],
                            to[1] - to[0]
                        ),
                    );
                }
            }
            PointwiseOp::Remap { from, to }
        }
        "constant" => PointwiseOp::Constant {
            value: number(r, "value"),
        },
        "scale_bias" => PointwiseOp::ScaleBias {
            scale: number(r, "scale"),
            bias: number(r, "bias"),
        },
        other => remap_or_blend(r, node, other),
    }
}

/// The construction of a remap or blend (`schema::REMAPS_AND_BLENDS`) from its fields.
fn remap_or_blend(r: &mut Reader, node: &NodeSchema, type_name: &str) -> PointwiseOp {
    let number = |r: &mut Reader, name: &str| r.scalar(spec(node, name));
    match type_name {
        "pow" => PointwiseOp::Pow {
            exponent: number(r, "exponent"),
        },
        "smoothstep" => {
            let low = number(r, "low");
            let high = number(r, "high");
            if low == high {
                r.issue("high", format!("must differ from low ({low})"));
            } else if (1.0 / (high - low)).abs() > MAX_SCALE {
                r.issue(
                    "high",
                    format!(
                        "a span of {:e} from low scales by more than the limit {MAX_SCALE:e} (widen it)",
                        high - low
                    ),
                );
            }
            PointwiseOp::Smoothstep { low, high }
        }
        "quantize" => PointwiseOp::Quantize {
            step: number(r, "step"),
        },
        "terrace" => PointwiseOp::Terrace {
            step: number(r, "step"),
            smoothness: number(r, "smoothness"),
        },
        "smooth_min" => PointwiseOp::SmoothMin { k: number(r, "k") },
        "smooth_max" => PointwiseOp::SmoothMax { k: number(r, "k") },
        "select" => PointwiseOp::Select {
            threshold: number(r, "threshold"),
            falloff: number(r, "falloff"),
        },
        "curve" => {
            let mode = match r.choice(spec(node, "mode")) {
                0 => CurveMode::Monotone,
                _ => CurveMode::Free,
            };
            let fallback = || {
                let default = spec(node, "points").default_points().unwrap_or(&[]);
                CurvePoints::new(default, mode).expect("the schema's default points fit")
            };
            let points = match r.points(spec(node, "points")) {
                Some(points) => match CurvePoints::new(&points, mode) {
                    Ok(c) => c,
                    Err((_, problem)) => {
                        r.issue("points", problem);
                        fallback()
                    }
                },
                None => fallback(),
            };
            PointwiseOp::Curve(Box::new(points))
        }
        other => unreachable!("schema: point-wise kind '{other}' has no construction in json.rs"),
    }
}

/// Parses a graph, collecting every problem (format and structure).
pub fn parse(value: &Value) -> Result<NoiseGraph, GraphErrors> {
    let mut issues = Vec::new();
    let Some(obj) = value.as_object() else {
        return Err(GraphErrors(vec![GraphIssue {
            node: None,
            field: "graph".into(),
            message: "must be a JSON object with seed, output and nodes".into(),
        }]));
    };
    let mut top = Reader {
        node: None,
        obj,
        used: vec![],
        issues: &mut issues,
    };
    let seed = match top.get("seed") {
        None => 0,
        Some(v) => match v.as_u64() {
            Some(s) if s <= u32::MAX as u64 => s as u32,
            _ => {
                top.issue(
                    "seed",
                    format!("must be an integer in [0, 4294967295] (got {})", shown(v)),
                );
                0
            }
        },
    };
    let output = top.string("output").unwrap_or_default();
    let raw_nodes = match top.get("nodes") {
        Some(Value::Array(items)) => items.clone(),
        Some(v) => {
            top.issue(
                "nodes",
                format!("must be a list of nodes (got {})", shown(v)),
            );
            vec![]
        }
        None => {
            top.issue("nodes", "is required");
            vec![]
        }
    };
    // Editors' own data (`noisegraph serve` keeps node positions there): read past, never
    // checked, never written back by `to_json`.
    let _ = top.get(LAYOUT_FIELD);
    top.finish();

    let mut nodes = Vec::new();
    // Ids of nodes declared with a missing or unknown type: they exist, but are not parsed.
    let mut unparsed: HashSet<String> = HashSet::new();
    let mut fractal_axes = Vec::new();
    for (index, raw) in raw_nodes.iter().enumerate() {
        let Some(obj) = raw.as_object() else {
            issues.push(GraphIssue {
                node: None,
                field: format!("nodes[{index}]"),
                message: "must be an object".into(),
            });
            continue;
        };
        let id = match obj.get("id") {
            Some(Value::String(s)) if !s.is_empty() => s.clone(),
            other => {
                issues.push(GraphIssue {
                    node: None,
                    field: format!("nodes[{index}].id"),
                    message: format!(
                        "must be a non-empty string (got {})",
                        other.map(shown).unwrap_or("nothing".into())
                    ),
                });
                format!("nodes[{index}]")
            }
        };
        let mut r = Reader {
            node: Some(id.clone()),
            obj,
            used: vec!["id", "type"],
            issues: &mut issues,
        };
        let type_name = match obj.get("type") {
            Some(Value::String(s)) => s.clone(),
            _ => {
                r.issue(
                    "type",
                    "is required: a family, fbm/ridged/billow, warp or a point-wise operation",
                );
                unparsed.insert(id);
                continue;
            }
        };
        if let Some(kind) = parse_node(&mut r, &type_name, &mut fractal_axes) {
            r.finish();
            nodes.push(Node { id, kind });
        } else {
            unparsed.insert(id);
        }
    }
    let graph = NoiseGraph {
        seed,
        output,
        nodes,
    };
    for list in fractal_axes {
        let dims = match graph.node(&list.source).map(|n| &n.kind) {
            Some(NodeKind::Family(f)) => f.dims,
            Some(_) if list.field == "offset" => continue,
            Some(_) => graph.dims_of(&list.source),
            None => continue,
        };
        if list.len != dims as usize {
            issues.push(GraphIssue {
                node: Some(list.node),
                field: list.field.into(),
                message: format!(
                    "must be a number or a list of {d} numbers (one per axis of the {d}D source '{}') (got {} numbers)",
                    list.source,
                    list.len,
                    d = dims
                ),
            });
        }
    }
    // Each problem once, at its own field: a field the parser already rejected (a missing or
    // malformed reference) is not reported again by the structural checks.
    let reported: HashSet<(Option<String>, String)> = issues
        .iter()
        .map(|i| (i.node.clone(), i.field.clone()))
        .collect();
    issues.extend(
        super::validate::structure_with(&graph, &unparsed)
            .into_iter()
            .filter(|i| !reported.contains(&(i.node.clone(), i.field.clone()))),
    );
    if issues.is_empty() {
        // Bounds that combine several fields and nodes (effective frequencies, value ranges)
        // need a graph whose references resolve and hold no cycle.
        issues.extend(limits::check(&graph));
    }
    if issues.is_empty() {
        Ok(graph)
    } else {
        Err(GraphErrors(issues))
    }
}

/// Quotes the bare `NaN` / `Infinity` tokens and overflowing numbers that some JSON writers
/// emit (and strict JSON rejects), so the parser can report them against their field.
fn quote_non_finite(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.char_indices().peekable();
    let mut in_string = false;
    while let Some((i, c)) = chars.next() {
        if in_string {
            out.push(c);
            if c == '\\' {
                if let Some((_, n)) = chars.next() {
                    out.push(n);
                }
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        if c == '"' {
            in_string = true;
            out.push(c);
            continue;
        }
        if c == '-' || c.is_ascii_alphanumeric() || c == '+' {
            let mut end = i + c.len_utf8();
            while let Some(&(j, n)) = chars.peek() {
                if n.is_ascii_alphanumeric() || matches!(n, '.' | '-' | '+') {
                    end = j + n.len_utf8();
                    chars.next();
                } else {
                    break;
                }
            }
            let token = &text[i..end];
            let non_finite = matches!(
                token.trim_start_matches(['-', '+']),
                "NaN" | "nan" | "Infinity" | "inf"
            ) || token.parse::<f64>().is_ok_and(|v| v.is_infinite());
            if non_finite {
                // {"\u0000non-finite": "TOKEN"}: see NON_FINITE_KEY.
                out.push_str("{\"\\u0000non-finite\": \"");
                out.push_str(token);
                out.push_str("\"}");
            } else {
                out.push_str(token);
            }
            continue;
        }
        out.push(c);
    }
    out
}

/// Parses JSON text; a syntax error is reported with its line and column.
pub fn parse_str(text: &str) -> Result<NoiseGraph, GraphErrors> {
    let value: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => match serde_json::from_str(&quote_non_finite(text)) {
            // Only non-finite numbers were wrong: report them against their fields.
            Ok(v) => v,
            Err(_) => {
                return Err(GraphErrors(vec![GraphIssue {
                    node: None,
                    field: "graph".into(),
                    message: format!("not valid JSON: {e}"),
                }]))
            }
        },
    };
    parse(&value)
}

fn axis_json(v: [f64; 4], dims: usize) -> Value {
    let dims = dims.clamp(1, 4);
    if v[..dims].iter().all(|x| *x == v[0]) {
        json!(v[0])
    } else {
        json!(v[..dims].to_vec())
    }
}

/// Writes a graph back as JSON (every parameter explicit).
pub fn to_value(graph: &NoiseGraph) -> Value {
    let nodes: Vec<Value> = graph
        .nodes
        .iter()
        .map(|node| {
            let mut m = Map::new();
            m.insert("id".into(), json!(node.id));
            m.insert("type".into(), json!(node.type_name()));
            match &node.kind {
                NodeKind::Family(f) => {
                    let fam = family::lookup(&f.family).expect("validated family");
                    m.insert("frequency".into(), axis_json(f.frequency, f.dims as usize));
                    m.insert("seed_offset".into(), json!(f.seed_offset));
                    m.insert("offset".into(), axis_json(f.offset, f.dims as usize));
                    m.insert("dims".into(), json!(f.dims));
                    m.insert("z".into(), json!(f.z));
                    m.insert("w".into(), json!(f.w));
                    if let Some(p) = f.period {
                        m.insert("period".into(), json!(p[..f.dims as usize].to_vec()));
                    }
                    for spec in fam.params() {
                        let v = match (spec.kind, f.params.values.get(spec.name)) {
                            (ParamKind::Choice { options, .. }, Some(ParamValue::Choice(i))) => {
                                json!(options[*i as usize])
                            }
                            (_, Some(ParamValue::Number(x))) => json!(x),
                            (_, Some(ParamValue::Integer(x))) => json!(x),
                            _ => continue,
                        };
                        m.insert(spec.name.into(), v);
                    }
                }
                NodeKind::Fractal(f) => {
                    m.insert("source".into(), json!(f.source));
                    m.insert("octaves".into(), json!(f.octaves));
                    m.insert("lacunarity".into(), json!(f.lacunarity));
                    m.insert("gain".into(), json!(f.gain));
                    m.insert("seed_offset".into(), json!(f.seed_offset));
                    let dims = graph.dims_of(&f.source) as usize;
                    m.insert("offset".into(), axis_json(f.offset, dims));
                    // The fields only some kinds declare, where the kind declares them.
                    let kind = schema::node_schema(f.kind.name());
                    for (name, value) in [
                        ("derivative_weight", f.derivative_weight),
                        ("signal_offset", f.signal_offset),
                    ] {
                        if kind.is_some_and(|k| k.field(name).is_some()) {
                            m.insert(name.into(), json!(value));
                        }
                    }
                }
                NodeKind::Mapping(mapping) => {
                    m.insert("source".into(), json!(mapping.source));
                    let dims = graph.dims_of(&mapping.source) as usize;
                    match &mapping.map {
                        MapKind::Transform {
                            translate,
                            scale,
                            rotate,
                            axis,
                            angle,
                        } => {
                            m.insert("translate".into(), axis_json(*translate, dims));
                            m.insert("rotate".into(), json!(rotate));
                            m.insert("axis".into(), json!(axis));
                            m.insert("angle".into(), json!(angle));
                            m.insert("scale".into(), axis_json(*scale, dims));
                        }
                        MapKind::Sphere { radius } | MapKind::Cylinder { radius } => {
                            m.insert("radius".into(), json!(radius));
                        }
                        MapKind::Torus { radius_x, radius_y } => {
                            m.insert("radius_x".into(), json!(radius_x));
                            m.insert("radius_y".into(), json!(radius_y));
                        }
                        MapKind::CubeFace { face, radius } => {
                            m.insert(
                                "face".into(),
                                json!(super::mapping::CUBE_FACES[*face as usize]),
                            );
                            m.insert("radius".into(), json!(radius));
                        }
                    }
                }
                NodeKind::Warp(w) => {
                    m.insert("source".into(), json!(w.source));
                    m.insert("displace".into(), json!(w.displace));
                    m.insert("amplitude".into(), json!(w.amplitude));
                }
                NodeKind::Pointwise(p) => {
                    match p.op.arity() {
                        0 => {}
                        1 => {
                            m.insert("source".into(), json!(p.inputs[0]));
                        }
                        _ => {
                            m.insert("inputs".into(), json!(p.inputs));
                        }
                    }
                    match p.op {
                        PointwiseOp::Clamp { min, max } => {
                            m.insert("min".into(), json!(min));
                            m.insert("max".into(), json!(max));
                        }
                        PointwiseOp::Remap { from, to } => {
                            m.insert("from".into(), json!(from));
                            m.insert("to".into(), json!(to));
                        }
                        PointwiseOp::Constant { value } => {
                            m.insert("value".into(), json!(value));
                        }
                        PointwiseOp::ScaleBias { scale, bias } => {
                            m.insert("scale".into(), json!(scale));
                            m.insert("bias".into(), json!(bias));
                        }
                        PointwiseOp::Pow { exponent } => {
                            m.insert("exponent".into(), json!(exponent));
                        }
                        PointwiseOp::Smoothstep { low, high } => {
                            m.insert("low".into(), json!(low));
                            m.insert("high".into(), json!(high));
                        }
                        PointwiseOp::Quantize { step } => {
                            m.insert("step".into(), json!(step));
                        }
                        PointwiseOp::Terrace { step, smoothness } => {
                            m.insert("step".into(), json!(step));
                            m.insert("smoothness".into(), json!(smoothness));
                        }
                        PointwiseOp::SmoothMin { k } | PointwiseOp::SmoothMax { k } => {
                            m.insert("k".into(), json!(k));
                        }
                        PointwiseOp::Select { threshold, falloff } => {
                            m.insert("threshold".into(), json!(threshold));
                            m.insert("falloff".into(), json!(falloff));
                        }
                        PointwiseOp::Curve(ref c) => {
                            m.insert("points".into(), json!(c.points()));
                            m.insert("mode".into(), json!(c.mode().name()));
                        }
                        _ => {}
                    }
                }
            }
            Value::Object(m)
        })
        .collect();
    json!({ "seed": graph.seed, "output": graph.output, "nodes": nodes })
}
