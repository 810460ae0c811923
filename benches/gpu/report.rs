//! The bench's figures: one row per workload, the roofline derived from them, and the
//! Markdown table and JSON written from them.

use std::time::Duration;

use serde::Serialize;

use crate::cost::Cost;
use crate::timer::AdapterReport;

/// Medians of one workload, in milliseconds (None where the workload has no such part).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Row {
    pub workload: String,
    pub size: String,
    pub samples: u64,
    pub repetitions: usize,
    /// GPU time between timestamps around the recorded work.
    pub kernel_ms: Option<f64>,
    /// Host time recording the work (pipeline lookups, buffers, bind groups, passes).
    pub record_ms: Option<f64>,
    /// Wall time from the submit to the end of the wait.
    pub submit_wait_ms: Option<f64>,
    pub upload_ms: Option<f64>,
    pub readback_ms: Option<f64>,
    /// End to end: the whole run (point queries: `GpuPointQuery::run`; bakes: the process).
    pub total_ms: Option<f64>,
    pub cost: Option<Cost>,
    pub note: String,
    /// Derived from the above by [`Roofline::apply`].
    pub roofline: Option<RooflinePoint>,
}

/// Where a workload sits against the adapter's peaks.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct RooflinePoint {
    /// Samples per second over the kernel time (or submit + wait without timestamps).
    pub samples_per_s: f64,
    pub ops_per_s: Option<f64>,
    pub bytes_per_s: Option<f64>,
    pub fraction_of_peak_ops: Option<f64>,
    pub fraction_of_peak_bandwidth: Option<f64>,
    /// Achieved operations over the roofline's attainable rate at this workload's
    /// arithmetic intensity: min(peak ops, ops per byte x peak bandwidth).
    pub fraction_of_roofline: Option<f64>,
}

/// The adapter's peaks (None: not given, "n/a" in the table).
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Roofline {
    pub peak_ops_per_s: Option<f64>,
    pub peak_bytes_per_s: Option<f64>,
}

pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

impl Roofline {
    pub fn apply(&self, row: &mut Row) {
        let Some(seconds) = row
            .kernel_ms
            .or(row.submit_wait_ms)
            .or(row.total_ms)
            .map(|ms| ms * 1e-3)
            .filter(|s| *s > 0.0)
        else {
            return;
        };
        let samples_per_s = row.samples as f64 / seconds;
        let ops_per_s = row.cost.map(|c| c.ops.total() * samples_per_s);
        let bytes_per_s = row.cost.map(|c| c.bytes() * samples_per_s);
        let fraction = |v: Option<f64>, peak: Option<f64>| Some(v? / peak?);
        let attainable = match (row.cost, self.peak_ops_per_s, self.peak_bytes_per_s) {
            (Some(c), Some(ops), Some(bw)) if c.bytes() > 0.0 => {
                Some(ops.min(c.ops.total() / c.bytes() * bw))
            }
            _ => None,
        };
        row.roofline = Some(RooflinePoint {
            samples_per_s,
            ops_per_s,
            bytes_per_s,
            fraction_of_peak_ops: fraction(ops_per_s, self.peak_ops_per_s),
            fraction_of_peak_bandwidth: fraction(bytes_per_s, self.peak_bytes_per_s),
            fraction_of_roofline: fraction(ops_per_s, attainable),
        });
    }
}

/// Everything one run measured.
#[derive(Debug, Serialize)]
pub struct Report {
    pub adapter: AdapterReport,
    pub roofline: Roofline,
    pub quick: bool,
    /// "release", or "test profile" (debug assertions on: the host's parts run slower).
    pub build: String,
    pub commit: String,
    pub date_utc: String,
    pub cpu_threads: usize,
    pub rows: Vec<Row>,
    /// Workloads that failed, with the error: the others still ran.
    pub failures: Vec<String>,
}

fn cell(v: Option<f64>, digits: usize) -> String {
    v.map_or_else(|| "n/a".into(), |v| format!("{v:.digits$}"))
}

fn percent(v: Option<f64>) -> String {
    v.map_or_else(|| "n/a".into(), |v| format!("{:.1}%", v * 100.0))
}

impl Report {
    /// The Markdown block for BENCHMARKS.md: what ran where, then the table.
    pub fn markdown(&self) -> String {
        let a = &self.adapter;
        let mut s = format!(
            "Adapter: {} ({}, {}), driver {} {}; kernel times: {}. Commit {}, {} UTC, {}, {} build; {} CPU threads. Peaks: {} op/s, {} B/s.\n\n",
            a.name,
            a.backend,
            a.device_type,
            a.driver,
            a.driver_info,
            if a.timestamps {
                "timestamp queries"
            } else {
                "n/a (no TIMESTAMP_QUERY: the submit-and-wait time stands in)"
            },
            self.commit,
            self.date_utc,
            if self.quick { "--quick" } else { "full run" },
            self.build,
            self.cpu_threads,
            self.roofline
                .peak_ops_per_s
                .map_or("n/a".into(), |v| format!("{v:.3e}")),
            self.roofline
                .peak_bytes_per_s
                .map_or("n/a".into(), |v| format!("{v:.3e}")),
        );
        s.push_str("| workload | size | kernel ms | record ms | submit+wait ms | upload ms | readback ms | total ms | Msamples/s | ops/sample | bytes/sample | Gop/s | % peak ops | GB/s | % peak BW | % roofline | notes |\n");
        s.push_str(
            "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n",
        );
        for r in &self.rows {
            let rf = r.roofline.as_ref();
            let ops = r.cost.map_or("n/a".into(), |c| {
                format!(
                    "{}{:.0}",
                    if c.ops.lower_bound { "≥" } else { "" },
                    c.ops.total()
                )
            });
            s.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                r.workload,
                r.size,
                cell(r.kernel_ms, 3),
                cell(r.record_ms, 3),
                cell(r.submit_wait_ms, 3),
                cell(r.upload_ms, 2),
                cell(r.readback_ms, 2),
                cell(r.total_ms, 1),
                cell(rf.map(|f| f.samples_per_s / 1e6), 1),
                ops,
                cell(r.cost.map(|c| c.bytes()), 0),
                cell(rf.and_then(|f| f.ops_per_s).map(|v| v / 1e9), 1),
                percent(rf.and_then(|f| f.fraction_of_peak_ops)),
                cell(rf.and_then(|f| f.bytes_per_s).map(|v| v / 1e9), 1),
                percent(rf.and_then(|f| f.fraction_of_peak_bandwidth)),
                percent(rf.and_then(|f| f.fraction_of_roofline)),
                r.note
            ));
        }
        for f in &self.failures {
            s.push_str(&format!("\nFailed: {f}\n"));
        }
        s
    }
}
