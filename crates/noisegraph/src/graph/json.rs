//! The JSON graph format (DESIGN.md): parsing with every problem collected, and writing back.

use std::collections::HashSet;

use serde_json::{json, Map, Value};

use super::limits::{self, MAX_COORDINATE, MAX_FREQUENCY, MAX_SCALE, MAX_VALUE, MIN_FREQUENCY};
use super::node::*;
use super::NoiseGraph;
use crate::error::{GraphErrors, GraphIssue};
use crate::family::{self, FamilyParams, ParamKind, ParamValue, COMMON_FAMILY_FIELDS};

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

    /// A finite number with |x| <= `limit`, `default` when absent or out of bounds.
    fn bounded(&mut self, key: &'static str, default: f64, limit: f64) -> f64 {
        let v = self.number(key, default);
        if v.abs() > limit {
            self.issue(key, limits::over(v, limit));
            return default;
        }
        v
    }

    fn positive(&mut self, key: &'static str, default: f64) -> f64 {
        let v = self.number(key, default);
        if v <= 0.0 {
            self.issue(key, format!("must be greater than 0 (got {v})"));
            return default;
        }
        v
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
    fn per_axis(
        &mut self,
        key: &'static str,
        default: f64,
        positive: bool,
        limit: f64,
        dims: Option<usize>,
    ) -> ([f64; 4], Option<usize>) {
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
                Some(x) if positive && x < MIN_FREQUENCY => {
                    self.issue(
                        key,
                        format!(
                            "must be at least {} (got {x})",
                            limits::show_limit(MIN_FREQUENCY)
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

    /// Exactly two finite numbers within [-`limit`, `limit`] (remap's `from` and `to`):
    /// required, since no range fits every source; `default` stands in after an issue.
    fn pair(&mut self, key: &'static str, default: [f64; 2], limit: f64) -> [f64; 2] {
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

fn parse_family(r: &mut Reader, fam: &dyn family::Family) -> FamilyNode {
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
    let (frequency, _) = r.per_axis("frequency", 1.0, true, MAX_FREQUENCY, axes);
    let seed_offset = r.integer("seed_offset", 0);
    let (offset, _) = r.per_axis("offset", 0.0, false, MAX_COORDINATE, axes);
    let z = r.bounded("z", 0.0, MAX_COORDINATE);
    let w = r.bounded("w", 0.0, MAX_COORDINATE);
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
    for spec in fam.params() {
        let raw = r.get(spec.name);
        let value = match (spec.kind, raw) {
            (ParamKind::Number { default, .. }, None) => ParamValue::Number(default),
            (ParamKind::Number { default, min, max }, Some(v)) => match v.as_f64() {
                Some(x) if x.is_finite() && x >= min && x <= max => ParamValue::Number(x),
                _ => {
                    r.issue(
                        spec.name,
                        format!(
                            "must be a finite number in [{min}, {max}] (got {})",
                            shown(v)
                        ),
                    );
                    ParamValue::Number(default)
                }
            },
            (ParamKind::Integer { default, .. }, None) => ParamValue::Integer(default),
            (ParamKind::Integer { default, min, max }, Some(v)) => match v.as_i64() {
                Some(x) if x >= min && x <= max => ParamValue::Integer(x),
                _ => {
                    r.issue(
                        spec.name,
                        format!("must be an integer in [{min}, {max}] (got {})", shown(v)),
                    );
                    ParamValue::Integer(default)
                }
            },
            (ParamKind::Choice { options, default }, raw) => {
                let name = match raw {
                    None => default,
                    Some(Value::String(s)) => s.as_str(),
                    Some(_) => "",
                };
                match options.iter().position(|o| *o == name) {
                    Some(i) => ParamValue::Choice(i as u32),
                    None => {
                        r.issue(
                            spec.name,
                            format!(
                                "must be one of {} (got {})",
                                options.join(", "),
                                raw.map(shown).unwrap_or_default()
                            ),
                        );
                        ParamValue::Choice(
                            options.iter().position(|o| *o == default).unwrap_or(0) as u32
                        )
                    }
                }
            }
        };
        params.values.insert(spec.name.to_string(), value);
    }
    for (field, message) in fam.validate(dims, &params) {
        r.issue(&field, message);
    }
    for key in COMMON_FAMILY_FIELDS {
        r.used.push(key);
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
    source: String,
    len: usize,
}

fn parse_node(
    r: &mut Reader,
    type_name: &str,
    fractal_axes: &mut Vec<FractalAxes>,
) -> Option<NodeKind> {
    if let Some(fam) = family::lookup(type_name) {
        return Some(NodeKind::Family(parse_family(r, fam)));
    }
    let fractal = match type_name {
        "fbm" => Some(FractalKind::Fbm),
        "ridged" => Some(FractalKind::Ridged),
        "billow" => Some(FractalKind::Billow),
        _ => None,
    };
    if let Some(kind) = fractal {
        let source = r.string("source").unwrap_or_default();
        let octaves = r.integer("octaves", 6);
        if !(1..=MAX_OCTAVES as i64).contains(&octaves) {
            r.issue(
                "octaves",
                format!("must be between 1 and {MAX_OCTAVES} (got {octaves})"),
            );
        }
        let lacunarity = r.positive("lacunarity", 2.0);
        let gain = r.number("gain", 0.5);
        let seed_offset = r.integer("seed_offset", 0);
        let (offset, listed) = r.per_axis("offset", 0.0, false, MAX_COORDINATE, None);
        if let (Some(len), Some(node)) = (listed, &r.node) {
            fractal_axes.push(FractalAxes {
                node: node.clone(),
                source: source.clone(),
                len,
            });
        }
        return Some(NodeKind::Fractal(FractalNode {
            kind,
            source,
            octaves: octaves.clamp(1, MAX_OCTAVES as i64) as u32,
            lacunarity,
            gain,
            seed_offset,
            offset,
        }));
    }
    if type_name == "warp" {
        let source = r.string("source").unwrap_or_default();
        let displace = r.string_list("displace");
        let amplitude = r.bounded("amplitude", 1.0, MAX_COORDINATE);
        return Some(NodeKind::Warp(WarpNode {
            source,
            displace,
            amplitude,
        }));
    }
    let op = match type_name {
        "add" => PointwiseOp::Add,
        "sub" => PointwiseOp::Sub,
        "mul" => PointwiseOp::Mul,
        "min" => PointwiseOp::Min,
        "max" => PointwiseOp::Max,
        "mix" => PointwiseOp::Mix,
        "abs" => PointwiseOp::Abs,
        "neg" => PointwiseOp::Neg,
        "clamp" => {
            let min = r.bounded("min", 0.0, MAX_VALUE);
            let max = r.bounded("max", 1.0, MAX_VALUE);
            if min > max {
                r.issue("max", format!("must be >= min ({min}) (got {max})"));
            }
            PointwiseOp::Clamp { min, max }
        }
        "remap" => {
            let from = r.pair("from", [0.0, 1.0], MAX_VALUE);
            let to = r.pair("to", [0.0, 1.0], MAX_VALUE);
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
            value: r.bounded("value", 0.0, MAX_VALUE),
        },
        "scale_bias" => PointwiseOp::ScaleBias {
            scale: r.bounded("scale", 1.0, MAX_SCALE),
            bias: r.bounded("bias", 0.0, MAX_VALUE),
        },
        _ => {
            let families: Vec<&str> = family::registry().iter().map(|f| f.name()).collect();
            r.issue(
                "type",
                format!(
                    "unknown node type '{type_name}' (families: {}; fractals: fbm, ridged, billow; warp; point-wise: {})",
                    families.join(", "),
                    PointwiseOp::NAMES.join(", ")
                ),
            );
            return None;
        }
    };
    let inputs = match op.arity() {
        0 => vec![],
        1 => r.string("source").into_iter().collect(),
        n => {
            let before = r.issues.len();
            let inputs = r.string_list("inputs");
            if inputs.len() != n && r.issues.len() == before {
                r.issue(
                    "inputs",
                    format!("{} takes {n} inputs (got {})", op.name(), inputs.len()),
                );
            }
            inputs
        }
    };
    Some(NodeKind::Pointwise(PointwiseNode { op, inputs }))
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
        if let Some(NodeKind::Family(f)) = graph.node(&list.source).map(|n| &n.kind) {
            if list.len != f.dims as usize {
                issues.push(GraphIssue {
                    node: Some(list.node),
                    field: "offset".into(),
                    message: format!(
                        "must be a number or a list of {d} numbers (one per axis of the {d}D source '{}') (got {} numbers)",
                        list.source,
                        list.len,
                        d = f.dims
                    ),
                });
            }
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
                        _ => {}
                    }
                }
            }
            Value::Object(m)
        })
        .collect();
    json!({ "seed": graph.seed, "output": graph.output, "nodes": nodes })
}
