//! Feeding encoders that pull their rows: the `exr` and `tiff` crates' writers run to the end
//! of the file inside one call, asking for each block's rows, while a bake pushes bands as it
//! makes them. Such an encoder runs on a thread of its own and takes the bands through a
//! channel holding one band, so memory holds a band or two, never the image.

use std::sync::mpsc::{Receiver, SyncSender};
use std::thread::JoinHandle;

/// An encoder running on its own thread, fed whole rows by [`PulledWriter::write_rows`].
pub(crate) struct PulledWriter {
    bands: Option<SyncSender<Vec<f32>>>,
    worker: Option<JoinHandle<Result<(), String>>>,
}

impl PulledWriter {
    /// Starts `encode` on a thread named `name`; it reads rows of `row` numbers from the
    /// [`Rows`] it is given and returns its error as text.
    pub(crate) fn spawn(
        name: &str,
        row: usize,
        encode: impl FnOnce(&mut Rows) -> Result<(), String> + Send + 'static,
    ) -> Result<Self, String> {
        let (bands, received) = std::sync::mpsc::sync_channel::<Vec<f32>>(1);
        let worker = std::thread::Builder::new()
            .name(name.into())
            .spawn(move || {
                let mut rows = Rows {
                    received,
                    pending: Vec::new(),
                    first_row: 0,
                    row,
                };
                encode(&mut rows)
            })
            .map_err(|e| format!("cannot start the {name} thread: {e}"))?;
        Ok(PulledWriter {
            bands: Some(bands),
            worker: Some(worker),
        })
    }

    /// Hands whole rows to the encoder.
    pub(crate) fn write_rows(&mut self, data: &[f32]) -> Result<(), String> {
        let bands = self.bands.as_ref().ok_or("the encoder already stopped")?;
        match bands.send(data.to_vec()) {
            Ok(()) => Ok(()),
            // The encoder stopped early: its error says why.
            Err(_) => Err(self
                .join()
                .err()
                .unwrap_or_else(|| "the encoder stopped before the last row".into())),
        }
    }

    /// Waits for the encoder to finish the file (after the last row was sent).
    pub(crate) fn finish(mut self) -> Result<(), String> {
        self.join()
    }

    fn join(&mut self) -> Result<(), String> {
        self.bands = None;
        match self.worker.take() {
            Some(worker) => worker
                .join()
                .unwrap_or_else(|_| Err("the encoding thread panicked".into())),
            None => Err("the encoder already stopped".into()),
        }
    }
}

impl Drop for PulledWriter {
    fn drop(&mut self) {
        // Unfinished: the closed channel makes the encoder stop with an error.
        self.bands = None;
        if let Some(worker) = self.worker.take() {
            let _ = worker.join();
        }
    }
}

/// The rows an encoder has received and not yet used, from `first_row` on.
pub(crate) struct Rows {
    received: Receiver<Vec<f32>>,
    pending: Vec<f32>,
    first_row: usize,
    /// Numbers per row.
    row: usize,
}

impl Rows {
    /// Rows `start..start + count` (at or after the rows asked for before), waiting for bands
    /// until they have come; `None` when the bake stopped before them.
    pub(crate) fn get(&mut self, start: usize, count: usize) -> Option<&[f32]> {
        while self.pending.len() < (start + count - self.first_row) * self.row {
            let band = self.received.recv().ok()?;
            // Drop what earlier blocks used: once a band, not once a block.
            self.pending.drain(..(start - self.first_row) * self.row);
            self.first_row = start;
            if self.pending.is_empty() {
                self.pending = band; // bands that end on a block: no copy
            } else {
                self.pending.extend_from_slice(&band);
            }
        }
        let from = (start - self.first_row) * self.row;
        Some(&self.pending[from..from + count * self.row])
    }
}
