//! A small RGB canvas with an 8x8 bitmap font: the `analyze --plot` figure and the gallery's
//! contact sheet, with no font files and no plotting dependency.

use std::path::Path;

use font8x8::UnicodeFonts;
use noisegraph::io::{write_atomic, Ramp};
use noisegraph::Field;

pub type Rgb = [u8; 3];
pub const WHITE: Rgb = [255, 255, 255];
pub const BLACK: Rgb = [0, 0, 0];
pub const GREY: Rgb = [160, 160, 160];

pub struct Canvas {
    pub width: u32,
    pub height: u32,
    pixels: Vec<u8>,
}

impl Canvas {
    pub fn new(width: u32, height: u32, background: Rgb) -> Canvas {
        Canvas {
            width,
            height,
            pixels: background
                .iter()
                .copied()
                .cycle()
                .take(width as usize * height as usize * 3)
                .collect(),
        }
    }

    pub fn set(&mut self, x: i64, y: i64, color: Rgb) {
        if x >= 0 && y >= 0 && (x as u32) < self.width && (y as u32) < self.height {
            let i = (y as usize * self.width as usize + x as usize) * 3;
            self.pixels[i..i + 3].copy_from_slice(&color);
        }
    }

    pub fn fill_rect(&mut self, x: i64, y: i64, w: i64, h: i64, color: Rgb) {
        for yy in y..y + h {
            for xx in x..x + w {
                self.set(xx, yy, color);
            }
        }
    }

    /// A line from (x0, y0) to (x1, y1), one pixel wide.
    pub fn line(&mut self, x0: f64, y0: f64, x1: f64, y1: f64, color: Rgb) {
        let steps = (x1 - x0).abs().max((y1 - y0).abs()).ceil().max(1.0) as i64;
        for s in 0..=steps {
            let t = s as f64 / steps as f64;
            self.set(
                (x0 + (x1 - x0) * t).round() as i64,
                (y0 + (y1 - y0) * t).round() as i64,
                color,
            );
        }
    }

    /// Text in the 8x8 font, top-left at (x, y); characters without a glyph show as '?'.
    pub fn text(&mut self, x: i64, y: i64, text: &str, color: Rgb) {
        for (i, ch) in text.chars().enumerate() {
            let glyph = font8x8::BASIC_FONTS
                .get(ch)
                .or_else(|| font8x8::BASIC_FONTS.get('?'))
                .unwrap_or([0; 8]);
            for (row, bits) in glyph.iter().enumerate() {
                for col in 0..8 {
                    if bits & (1 << col) != 0 {
                        self.set(x + i as i64 * 8 + col, y + row as i64, color);
                    }
                }
            }
        }
    }

    /// Draws slice 0 of `field` as grey levels, `range` mapped to black..white.
    /// Draws `field` at (x, y): `range` mapped to black..white, or through `ramp`.
    pub fn field(&mut self, x: i64, y: i64, field: &Field, range: (f32, f32), ramp: Option<&Ramp>) {
        for py in 0..field.height {
            for px in 0..field.width {
                let v = field.get(px, py, 0);
                let rgb = match ramp {
                    Some(ramp) => ramp.rgb8(noisegraph::io::normalize(v, range)),
                    None => [noisegraph::io::gray8(v, range); 3],
                };
                self.set(x + px as i64, y + py as i64, rgb);
            }
        }
    }

    /// Writes the canvas as an RGB PNG (atomically).
    pub fn save(&self, path: &Path) -> noisegraph::Result<()> {
        write_atomic(path, |tmp| {
            image::RgbImage::from_raw(self.width, self.height, self.pixels.clone())
                .expect("size matches")
                .save_with_format(tmp, image::ImageFormat::Png)
                .map_err(|e| noisegraph::Error::Encode {
                    path: path.display().to_string(),
                    message: e.to_string(),
                })
        })
    }
}
