//! "Nothing else moves": the CPU bakes of every catalog graph (every family and variant, the
//! presets and the example graphs), in value and gradient form, at a view at the origin and
//! one near 1e6, hashed bit for bit and compared with `tests/data/recorded_bakes.txt`.
//!
//! A change that means to move pixels (and says so in its commit) records the file anew:
//! `NOISEGRAPH_RECORD_BAKES=1 cargo test --test recorded_bakes`.

mod common;

use std::collections::BTreeMap;
use std::fmt::Write as _;

use common::catalog;
use noisegraph::graph::gradient_plan;
use noisegraph::{Plan, View};

const RECORD_ENV: &str = "NOISEGRAPH_RECORD_BAKES";

/// FNV-1a over the samples' bits: any change of any bit changes it.
fn hash(bits: impl Iterator<Item = u32>) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bits {
        for byte in b.to_le_bytes() {
            h ^= u64::from(byte);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

/// The two views: at the origin, and near 1e6 with an extent that is not a power of two.
fn views(dims: u32) -> [(&'static str, View); 2] {
    let base = if dims >= 3 {
        View::volume(37, 29, 5)
    } else {
        View::image(61, 43)
    };
    [
        ("origin0", base),
        (
            "origin1e6",
            base.with_origin([1.0e6 + 0.371, -1.0e6 + 0.813, 0.25])
                .with_extent([0.731, 0.517, 0.3]),
        ),
    ]
}

fn record() -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for entry in catalog::all() {
        let dims = entry.graph.dims_of(&entry.graph.output);
        for (view_name, view) in views(dims) {
            let plan = Plan::new(&entry.graph, None).expect("plan");
            let field = noisegraph::engine::run_cpu(&plan, &view, &Default::default())
                .unwrap_or_else(|e| panic!("{}: {e}", entry.label));
            let value = format!("{:016x}", hash(field.data.iter().map(|v| v.to_bits())));
            out.insert(format!("{} | {view_name} | value", entry.label), value);
            let gradient = match gradient_plan(&entry.graph, None) {
                Ok(plan) => {
                    let field =
                        noisegraph::engine::run_cpu_gradient(&plan, &view, &Default::default())
                            .unwrap_or_else(|e| panic!("{} gradient: {e}", entry.label));
                    format!(
                        "{:016x}",
                        hash(field.data.iter().flat_map(|s| s.map(f32::to_bits)))
                    )
                }
                Err(_) => "refused".to_string(),
            };
            out.insert(
                format!("{} | {view_name} | gradient", entry.label),
                gradient,
            );
        }
    }
    out
}

#[test]
fn cpu_bakes_match_the_recorded_bits() {
    let path = format!(
        "{}/tests/data/recorded_bakes.txt",
        env!("CARGO_MANIFEST_DIR")
    );
    let now = record();
    if std::env::var_os(RECORD_ENV).is_some() {
        let mut text = String::from("# label | view | form = FNV-1a of the samples' bits\n");
        for (k, v) in &now {
            writeln!(text, "{k} = {v}").unwrap();
        }
        std::fs::create_dir_all(std::path::Path::new(&path).parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        return;
    }
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{path}: {e} (record it with {RECORD_ENV}=1)"));
    let recorded: BTreeMap<String, String> = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let (k, v) = l.rsplit_once(" = ").expect("key = hash");
            (k.to_string(), v.to_string())
        })
        .collect();
    let mut moved = Vec::new();
    for (k, v) in &recorded {
        match now.get(k) {
            Some(n) if n == v => {}
            Some(n) => moved.push(format!("{k}: recorded {v}, now {n}")),
            None => moved.push(format!("{k}: recorded, no longer baked")),
        }
    }
    assert!(
        moved.is_empty(),
        "{} of {} recorded bakes moved:\n{}",
        moved.len(),
        recorded.len(),
        moved.join("\n")
    );
    assert!(
        recorded.len() >= 100,
        "only {} bakes recorded",
        recorded.len()
    );
}
