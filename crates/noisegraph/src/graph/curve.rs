//! The `curve` node's control points and the cubic pieces fitted through them (the table the
//! kernels read: `twin::lib::curve`, whose docs give its layout).
//!
//! Between two points the curve is the cubic Hermite piece through both with the tangents the
//! [`CurveMode`] gives each point; outside the first and last point it extends linearly with
//! the end point's tangent, so it is continuous with a continuous slope everywhere. The fit is
//! in f64, each coefficient rounded once to f32.

use crate::twin::lib::curve::{CurveTable, MAX_CURVE_POINTS};

/// Largest magnitude of a control point's coordinates (10^6).
pub const MAX_CURVE_COORDINATE: f64 = 1e6;

/// Smallest gap between two points' x, relative to the larger magnitude of the two (and 1):
/// 2^-16, so that an f32 sample inside a piece keeps 8 bits of its position in it.
pub const MIN_CURVE_GAP: f64 = 1.0 / 65536.0;

/// How a curve's tangents are chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CurveMode {
    /// Fritsch-Carlson monotone cubic Hermite: never overshoots the points; between two
    /// points of equal y the curve is flat, and where the points rise (fall) it rises (falls).
    Monotone,
    /// Catmull-Rom style: each inner point's tangent is the slope from its left to its right
    /// neighbour, the end points' the slope to their neighbour. Smooth, may overshoot.
    Free,
}

impl CurveMode {
    /// The names of the modes, in the schema's order.
    pub const NAMES: &'static [&'static str] = &["monotone", "free"];

    /// The mode's JSON name.
    pub fn name(self) -> &'static str {
        match self {
            CurveMode::Monotone => "monotone",
            CurveMode::Free => "free",
        }
    }
}

/// A curve's control points (2 to [`MAX_CURVE_POINTS`], x strictly increasing, checked by
/// the parser) and its mode, held in a fixed array.
#[derive(Clone, Copy, PartialEq)]
pub struct CurvePoints {
    mode: CurveMode,
    len: usize,
    points: [[f64; 2]; MAX_CURVE_POINTS],
}

impl std::fmt::Debug for CurvePoints {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CurvePoints")
            .field("mode", &self.mode)
            .field("points", &self.points())
            .finish()
    }
}

/// Why a list of control points is refused: the message and the index of the point it names
/// (if one).
pub type CurveProblem = (Option<usize>, String);

impl CurvePoints {
    /// The curve through `points` with `mode`, or what is wrong with them.
    pub fn new(points: &[[f64; 2]], mode: CurveMode) -> Result<Self, CurveProblem> {
        if points.len() < 2 {
            return Err((
                None,
                format!("needs at least 2 points (got {})", points.len()),
            ));
        }
        if points.len() > MAX_CURVE_POINTS {
            return Err((
                None,
                format!(
                    "takes at most {MAX_CURVE_POINTS} points (got {})",
                    points.len()
                ),
            ));
        }
        for (i, p) in points.iter().enumerate() {
            if p.iter()
                .any(|v| !v.is_finite() || v.abs() > MAX_CURVE_COORDINATE)
            {
                return Err((
                    Some(i),
                    format!(
                        "point {i} ({}, {}) must be finite with |x|, |y| <= {MAX_CURVE_COORDINATE:e}",
                        p[0], p[1]
                    ),
                ));
            }
        }
        for i in 1..points.len() {
            let (a, b) = (points[i - 1][0], points[i][0]);
            if b <= a {
                return Err((
                    Some(i),
                    format!(
                        "x must increase strictly: point {i} has x = {b}, point {} x = {a}",
                        i - 1
                    ),
                ));
            }
            let gap = MIN_CURVE_GAP * a.abs().max(b.abs()).max(1.0);
            if b - a < gap {
                return Err((
                    Some(i),
                    format!(
                        "point {i} (x = {b}) is {:e} past point {} (x = {a}): the gap must be at least {gap:e} (2^-16 of the larger |x|, and of 1)",
                        b - a,
                        i - 1
                    ),
                ));
            }
        }
        let mut fixed = [[0.0; 2]; MAX_CURVE_POINTS];
        fixed[..points.len()].copy_from_slice(points);
        Ok(CurvePoints {
            mode,
            len: points.len(),
            points: fixed,
        })
    }

    /// The control points.
    pub fn points(&self) -> &[[f64; 2]] {
        &self.points[..self.len]
    }

    /// The mode.
    pub fn mode(&self) -> CurveMode {
        self.mode
    }

    /// The tangent at each point (f64).
    fn tangents(&self) -> Vec<f64> {
        let p = self.points();
        let n = p.len();
        let secant: Vec<f64> = (0..n - 1)
            .map(|i| (p[i + 1][1] - p[i][1]) / (p[i + 1][0] - p[i][0]))
            .collect();
        let mut m = vec![0.0; n];
        m[0] = secant[0];
        m[n - 1] = secant[n - 2];
        match self.mode {
            CurveMode::Free => {
                for i in 1..n - 1 {
                    m[i] = (p[i + 1][1] - p[i - 1][1]) / (p[i + 1][0] - p[i - 1][0]);
                }
            }
            CurveMode::Monotone => {
                // Fritsch and Carlson (1980): the mean of the two secants where they agree in
                // sign, 0 at a local extremum; then each piece's tangents scaled into the
                // circle of radius 3 (of the piece's secant) that keeps it monotone.
                for i in 1..n - 1 {
                    m[i] = if secant[i - 1] * secant[i] <= 0.0 {
                        0.0
                    } else {
                        0.5 * (secant[i - 1] + secant[i])
                    };
                }
                for (i, &d) in secant.iter().enumerate() {
                    if d == 0.0 {
                        m[i] = 0.0;
                        m[i + 1] = 0.0;
                        continue;
                    }
                    let (alpha, beta) = (m[i] / d, m[i + 1] / d);
                    let r = alpha * alpha + beta * beta;
                    if r > 9.0 {
                        let tau = 3.0 / r.sqrt();
                        m[i] = tau * alpha * d;
                        m[i + 1] = tau * beta * d;
                    }
                }
            }
        }
        m
    }

    /// The table of pieces every path evaluates (layout: `twin::lib::curve`), and the number
    /// of points.
    pub fn table(&self) -> (CurveTable, u32) {
        let p = self.points();
        let m = self.tangents();
        let n = p.len();
        let mut table = [[0.0f32; 4]; 2 * MAX_CURVE_POINTS];
        for i in 0..n {
            let (x, y) = (p[i][0], p[i][1]);
            let (c2, c3) = if i + 1 < n {
                let h = p[i + 1][0] - x;
                let d = (p[i + 1][1] - y) / h;
                (
                    (3.0 * d - 2.0 * m[i] - m[i + 1]) / h,
                    (m[i] + m[i + 1] - 2.0 * d) / (h * h),
                )
            } else {
                (0.0, 0.0)
            };
            table[2 * i] = [x as f32, (y - m[i] * x) as f32, m[i] as f32, c2 as f32];
            table[2 * i + 1] = [c3 as f32, 0.0, 0.0, 0.0];
        }
        (table, n as u32)
    }

    /// A range holding the curve's values over inputs in [lo, hi]: the ends' values and the
    /// Bezier control values of every piece that meets the interval (a cubic piece lies
    /// within its control values' hull).
    pub fn range(&self, lo: f64, hi: f64) -> (f64, f64) {
        let p = self.points();
        let m = self.tangents();
        let n = p.len();
        let at = |a: f64| -> f64 {
            let i = (1..n).rev().find(|&j| a >= p[j][0]).unwrap_or(0);
            let s = (a - p[i][0]).max(0.0);
            if i + 1 == n || a < p[0][0] {
                return p[i][1] + m[i] * (a - p[i][0]);
            }
            let h = p[i + 1][0] - p[i][0];
            let d = (p[i + 1][1] - p[i][1]) / h;
            let c2 = (3.0 * d - 2.0 * m[i] - m[i + 1]) / h;
            let c3 = (m[i] + m[i + 1] - 2.0 * d) / (h * h);
            p[i][1] + m[i] * s + s * s * (c2 + c3 * s)
        };
        let (mut low, mut high) = {
            let (a, b) = (at(lo), at(hi));
            (a.min(b), a.max(b))
        };
        for i in 0..n - 1 {
            if p[i + 1][0] < lo || p[i][0] > hi {
                continue;
            }
            let h = p[i + 1][0] - p[i][0];
            for v in [
                p[i][1],
                p[i][1] + h * m[i] / 3.0,
                p[i + 1][1] - h * m[i + 1] / 3.0,
                p[i + 1][1],
            ] {
                low = low.min(v);
                high = high.max(v);
            }
        }
        (low, high)
    }
}
