//! The browser tests of `noisegraph serve` (tests/e2e, run by Node's test runner) driving
//! Debian's Chromium headless through playwright-core, as part of `cargo test`. They need
//! `chromium` (apt), Node and `npm ci` in tests/e2e. Where one is missing the test says what
//! and passes, unless NOISEGRAPH_REQUIRE_BROWSER=1 (as in CI), where it fails.

use std::path::{Path, PathBuf};
use std::process::Command;

fn chromium() -> PathBuf {
    std::env::var_os("NOISEGRAPH_CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"))
}

fn missing(e2e: &Path) -> Vec<String> {
    let mut missing = Vec::new();
    if !chromium().exists() {
        missing.push(format!(
            "{} (apt-get install chromium chromium-driver)",
            chromium().display()
        ));
    }
    let node = Command::new("node").arg("--version").output();
    if !node.is_ok_and(|o| o.status.success()) {
        missing.push("node (apt-get install nodejs npm)".into());
    }
    if !e2e
        .join("node_modules/playwright-core/package.json")
        .exists()
    {
        missing.push(format!(
            "{} (run `npm ci` there)",
            e2e.join("node_modules/playwright-core").display()
        ));
    }
    missing
}

#[test]
fn serve_page_in_a_real_browser() {
    let e2e = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e");
    let missing = missing(&e2e);
    if !missing.is_empty() {
        let what = missing.join("; ");
        if std::env::var("NOISEGRAPH_REQUIRE_BROWSER").as_deref() == Ok("1") {
            panic!("NOISEGRAPH_REQUIRE_BROWSER=1 but the browser tests cannot run: missing {what}");
        }
        eprintln!("skipping the browser tests of `noisegraph serve`: missing {what}");
        return;
    }
    let status = Command::new("node")
        .args(["--test", "--test-reporter=spec"])
        .current_dir(&e2e)
        .env("NOISEGRAPH_BIN", env!("CARGO_BIN_EXE_noisegraph"))
        .env("NOISEGRAPH_CHROMIUM", chromium())
        .status()
        .expect("node runs");
    assert!(status.success(), "browser tests failed ({status})");
}
