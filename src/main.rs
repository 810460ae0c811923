//! The `noisegraph` command-line tool: bake graphs to texture files, show the GPU adapter.

mod cli;

fn main() {
    std::process::exit(cli::main());
}
