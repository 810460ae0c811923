// Values in text fields and sliders: parsing what the user typed, slider spans and steps.
// A typed number, or the text itself when it is not one (so the engine reports it).
export function parseScalar(text) {
  const t = String(text).trim();
  if (t !== '' && Number.isFinite(Number(t))) return Number(t);
  return t;
}
export function parseList(text) {
  return String(text).split(',').map(parseScalar);
}
export function showValue(v) {
  return Array.isArray(v) ? v.join(', ') : String(v);
}
function roundNice(x, log) {
  if (!Number.isFinite(x)) return x;
  if (log || Math.abs(x) >= 1) return Number(x.toPrecision(3));
  return Math.round(x * 1000) / 1000;
}

// A slider's span for a numeric field: its accepted bounds, or the soft span where open.
export function sliderSpan(f) {
  const soft = f.soft || [];
  let lo = f.min !== undefined && !f.exclusive_min ? f.min : soft[0];
  let hi = f.max !== undefined ? f.max : soft[1];
  if (lo === undefined) lo = f.min !== undefined ? f.min : 0;
  if (hi === undefined) hi = lo + 1;
  if (f.exclusive_min && soft[0] !== undefined) lo = soft[0];
  return { lo, hi, log: !!f.log && lo > 0 };
}
export function toSlider(span, v) {
  if (typeof v !== 'number') return 0;
  const t = span.log ? (Math.log(v) - Math.log(span.lo)) / (Math.log(span.hi) - Math.log(span.lo)) : (v - span.lo) / (span.hi - span.lo);
  return Math.round(Math.min(1, Math.max(0, t)) * 1000);
}
export function fromSlider(span, s, integer) {
  const t = s / 1000;
  const v = span.log ? Math.exp(Math.log(span.lo) + t * (Math.log(span.hi) - Math.log(span.lo))) : span.lo + t * (span.hi - span.lo);
  return integer ? Math.round(v) : roundNice(v, span.log);
}
