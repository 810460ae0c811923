//! `noisegraph serve` over loopback: previews equal `bake`'s output, bad graphs and malformed
//! or hostile requests get answers (never a crash, and the server keeps serving), and Save
//! writes the one file named on the command line, atomically, and nothing else.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_noisegraph");

struct Server {
    child: Child,
    port: u16,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(args: &[&str]) -> Server {
    let mut child = Command::new(BIN)
        .arg("serve")
        .args(args)
        .args(["--port", "0", "--backend", "cpu"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port = line
        .split("http://127.0.0.1:")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no URL in {line:?}"));
    Server { child, port }
}

struct Reply {
    status: u16,
    head: String,
    body: Vec<u8>,
}

impl Reply {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&self.body)))
    }
}

/// Sends raw bytes and reads the whole answer (the request should ask to close).
fn raw(port: u16, bytes: &[u8]) -> Option<Reply> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let _ = s.write_all(bytes);
    let _ = s.shutdown(std::net::Shutdown::Write);
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    let end = out.windows(4).position(|w| w == b"\r\n\r\n")? + 4;
    let head = String::from_utf8_lossy(&out[..end]).into_owned();
    let status = head.split(' ').nth(1)?.parse().ok()?;
    Some(Reply {
        status,
        head,
        body: out[end..].to_vec(),
    })
}

fn request(port: u16, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Reply {
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(body);
    raw(port, &bytes).expect("an answer")
}

fn get(port: u16, path: &str) -> Reply {
    request(port, "GET", path, &[], b"")
}

fn post(port: u16, path: &str, body: &Value) -> Reply {
    request(
        port,
        "POST",
        path,
        &[("Content-Type", "application/json")],
        body.to_string().as_bytes(),
    )
}

/// The preview message: its JSON header and its samples.
fn unpack(body: &[u8]) -> (Value, Vec<f32>) {
    let len = u32::from_le_bytes(body[..4].try_into().unwrap()) as usize;
    let header: Value = serde_json::from_slice(&body[4..4 + len]).unwrap();
    let start = (4 + len).div_ceil(4) * 4;
    let samples = body[start..]
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    (header, samples)
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ng-serve-http-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn bake(args: &[&str]) {
    let out = Command::new(BIN)
        .arg("bake")
        .args(args)
        .args(["--backend", "cpu"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn read_npy(path: &Path) -> Vec<f32> {
    let bytes = std::fs::read(path).unwrap();
    let header = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    bytes[10 + header..]
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn png_pixels(bytes: &[u8]) -> Vec<u8> {
    let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    buf.truncate(info.buffer_size());
    buf
}

#[test]
fn previews_are_what_bake_writes() {
    let server = serve(&[]);
    let dir = temp_dir("bake");
    for preset in noisegraph::presets::PRESETS {
        let graph: Value = serde_json::from_str(preset.json).unwrap();
        let view = json!({ "graph": graph, "size": [96, 64],
            "origin": ["1000000.5", "-3.25"], "extent": ["2", "1.5"] });
        let reply = post(server.port, "/api/render", &view);
        assert_eq!(reply.status, 200, "{}: {}", preset.name, reply.head);
        let (header, samples) = unpack(&reply.body);
        assert_eq!(header["node"], graph["output"]);
        assert_eq!(
            (header["width"].as_u64(), header["height"].as_u64()),
            (Some(96), Some(64))
        );
        let npy = dir.join(format!("{}.npy", preset.name));
        bake(&[
            "--preset",
            preset.name,
            "-o",
            npy.to_str().unwrap(),
            "--size",
            "96x64",
            "--origin",
            "1000000.5,-3.25",
            "--extent",
            "2,1.5",
        ]);
        let baked = read_npy(&npy);
        assert!(
            samples
                .iter()
                .zip(&baked)
                .all(|(a, b)| a.to_bits() == b.to_bits()),
            "{}: preview and bake differ",
            preset.name
        );
        let stats = &header["stats"];
        // (JSON numbers come back within an ulp of f64; the samples are f32.)
        let min = baked.iter().copied().fold(f32::INFINITY, f32::min);
        assert_eq!(stats["min"].as_f64().map(|m| m as f32), Some(min));
        assert_eq!(stats["histogram"].as_array().unwrap().len(), 32);
        assert_eq!(stats["spectrum"].as_array().unwrap().len(), 33);

        // Download PNG: the pixels bake writes.
        let png = post(server.port, "/api/png", &view);
        assert_eq!(png.status, 200);
        assert!(png.head.contains("Content-Type: image/png"));
        let baked_png = dir.join(format!("{}.png", preset.name));
        bake(&[
            "--preset",
            preset.name,
            "-o",
            baked_png.to_str().unwrap(),
            "--size",
            "96x64",
            "--origin",
            "1000000.5,-3.25",
            "--extent",
            "2,1.5",
        ]);
        assert_eq!(
            png_pixels(&png.body),
            png_pixels(&std::fs::read(&baked_png).unwrap()),
            "{}",
            preset.name
        );
    }
    // Another node and min..max levels, as `--node` and `--normalize minmax`.
    let graph: Value =
        serde_json::from_str(noisegraph::presets::find("marble").unwrap().json).unwrap();
    let first = graph["nodes"][0]["id"].as_str().unwrap().to_string();
    let view = json!({ "graph": graph, "node": first, "size": [32, 32], "normalize": "minmax" });
    let png = post(server.port, "/api/png", &view);
    let baked_png = dir.join("node.png");
    bake(&[
        "--preset",
        "marble",
        "--node",
        &first,
        "--normalize",
        "minmax",
        "-o",
        baked_png.to_str().unwrap(),
        "--size",
        "32x32",
    ]);
    assert_eq!(
        png_pixels(&png.body),
        png_pixels(&std::fs::read(&baked_png).unwrap())
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_graphs_are_answered_at_their_fields() {
    let server = serve(&[]);
    let reply = post(
        server.port,
        "/api/render",
        &json!({ "graph": { "seed": 1, "output": "w", "nodes": [
            { "id": "p", "type": "perlin", "frequency": 0, "fade": "smooth" },
            { "id": "w", "type": "warp", "source": "p", "displace": ["p", "nowhere"] } ] },
            "size": [5000, 10] }),
    );
    assert_eq!(reply.status, 422);
    let errors = reply.json()["errors"].as_array().unwrap().clone();
    let at = |node: Value, field: &str| {
        errors
            .iter()
            .any(|e| e["node"] == node && e["field"] == field)
    };
    assert!(at(json!("p"), "frequency"), "{errors:?}");
    assert!(at(json!("p"), "fade"), "{errors:?}");
    assert!(at(json!("w"), "displace"), "{errors:?}");
    assert!(at(Value::Null, "size"), "{errors:?}");
    // Not JSON, or not a render request: 400 with the reason.
    let reply = request(
        server.port,
        "POST",
        "/api/render",
        &[("Content-Type", "application/json")],
        b"{\"graph\": ",
    );
    assert_eq!(reply.status, 400);
    assert!(reply.json()["error"]
        .as_str()
        .unwrap()
        .contains("request body"));
    let reply = post(
        server.port,
        "/api/render",
        &json!({ "graph": {}, "path": "/etc/passwd" }),
    );
    assert_eq!(reply.status, 400);
    assert_eq!(get(server.port, "/api/meta").status, 200);
}

#[test]
fn malformed_and_hostile_requests_leave_the_server_serving() {
    let server = serve(&[]);
    let port = server.port;
    let host = format!("Host: 127.0.0.1:{port}");
    let cases: Vec<(Vec<u8>, u16)> = vec![
        (b"\x00\x01\x02\x03 garbage\r\n\r\n".to_vec(), 400),
        (b"GET / HTTP/1.1\r\n\r\n".to_vec(), 400), // no Host
        (format!("GET /api/meta HTTP/1.1\r\nHost: rebound.example:{port}\r\n\r\n").into_bytes(), 403),
        (format!("GET /api/meta HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n\r\n", port.wrapping_add(1)).into_bytes(), 403),
        (format!("GET /{} HTTP/1.1\r\n{host}\r\n\r\n", "a".repeat(20_000)).into_bytes(), 431),
        (format!("POST /api/render HTTP/1.1\r\n{host}\r\nContent-Type: application/json\r\nContent-Length: 100000000\r\n\r\n").into_bytes(), 413),
        (format!("POST /api/render HTTP/1.1\r\n{host}\r\nContent-Type: application/json\r\nContent-Length: -5\r\n\r\n").into_bytes(), 400),
        (format!("POST /api/render HTTP/1.1\r\n{host}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n").into_bytes(), 411),
        (format!("POST /api/save HTTP/1.1\r\n{host}\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\n{{}}").into_bytes(), 415),
        (format!("POST /api/save HTTP/1.1\r\n{host}\r\nOrigin: http://evil.example\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{{}}").into_bytes(), 403),
        (format!("DELETE /api/file HTTP/1.1\r\n{host}\r\n\r\n").into_bytes(), 405),
        (format!("GET /../../etc/passwd HTTP/1.1\r\n{host}\r\n\r\n").into_bytes(), 404),
        ([format!("GET / HTTP/1.1\r\n{host}\r\nX: ").as_bytes(), b"\xff\xfe\r\n\r\n"].concat(), 400),
    ];
    for (bytes, status) in &cases {
        let reply = raw(port, bytes).unwrap_or_else(|| {
            panic!(
                "no answer to {:?}",
                String::from_utf8_lossy(&bytes[..bytes.len().min(80)])
            )
        });
        assert_eq!(
            reply.status,
            *status,
            "{:?}",
            String::from_utf8_lossy(&bytes[..bytes.len().min(80)])
        );
        assert_eq!(get(port, "/api/meta").status, 200, "still serving");
    }
    // Requests cut short, and a connection that sends nothing, get no answer and cost nothing.
    assert!(raw(
        port,
        format!("POST /api/render HTTP/1.1\r\n{host}\r\nContent-Length: 50\r\n\r\n{{").as_bytes()
    )
    .is_none());
    assert!(raw(port, b"GET / HT").is_none());
    let silent = TcpStream::connect(("127.0.0.1", port)).unwrap();
    // A graph that renders, on a server that went through all of the above.
    let graph = json!({ "seed": 1, "output": "p", "nodes": [{ "id": "p", "type": "perlin" }] });
    assert_eq!(
        post(
            port,
            "/api/render",
            &json!({ "graph": graph, "size": [8, 8] })
        )
        .status,
        200
    );
    assert!(get(port, "/").head.contains("Content-Security-Policy"));
    drop(silent);
    // The server process is still alive.
    let mut server = server;
    assert!(server.child.try_wait().unwrap().is_none());
}

#[test]
fn save_writes_only_the_given_file_atomically() {
    let dir = temp_dir("save");
    let file = dir.join("graph.json");
    let original =
        "{\"seed\": 1, \"output\": \"p\", \"nodes\": [{\"id\": \"p\", \"type\": \"perlin\"}]}\n";
    std::fs::write(&file, original).unwrap();
    let server = serve(&[file.to_str().unwrap()]);
    let port = server.port;
    let loaded = get(port, "/api/file").json();
    assert_eq!(loaded["text"], original);
    assert_eq!(loaded["path"], file.to_str().unwrap());
    let version = loaded["version"].as_str().unwrap().to_string();
    assert_eq!(
        get(port, "/api/file/version").json()["version"],
        version.as_str()
    );

    // An invalid graph is not saved.
    let bad = post(
        port,
        "/api/save",
        &json!({ "text": "{\"seed\": -1}", "base_version": version }),
    );
    assert_eq!(bad.status, 422);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), original);
    // A path cannot be given.
    let elsewhere = post(
        port,
        "/api/save",
        &json!({ "text": original, "base_version": version,
        "path": dir.join("other.json") }),
    );
    assert_eq!(elsewhere.status, 400);

    let edited = original.replace("\"seed\": 1", "\"seed\": 2");
    let saved = post(
        port,
        "/api/save",
        &json!({ "text": edited, "base_version": version }),
    );
    assert_eq!(
        saved.status,
        200,
        "{}",
        String::from_utf8_lossy(&saved.body)
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), edited);
    let new_version = saved.json()["version"].as_str().unwrap().to_string();
    assert_ne!(new_version, version);
    assert_eq!(
        get(port, "/api/file/version").json()["version"],
        new_version.as_str()
    );
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        vec!["graph.json".to_string()],
        "no temporary file is left"
    );

    // Another editor changes the file: a save from the old version is refused, unless forced.
    let theirs = original.replace("\"seed\": 1", "\"seed\": 3");
    std::fs::write(&file, &theirs).unwrap();
    let stale = post(
        port,
        "/api/save",
        &json!({ "text": original, "base_version": new_version }),
    );
    assert_eq!(stale.status, 409);
    assert_eq!(stale.json()["conflict"], true);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), theirs);
    let forced = post(
        port,
        "/api/save",
        &json!({ "text": original, "base_version": new_version, "force": true }),
    );
    assert_eq!(forced.status, 200);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), original);

    // Without a file, Save is off.
    let bare = serve(&[]);
    let reply = post(bare.port, "/api/save", &json!({ "text": original }));
    assert_eq!(reply.status, 403);
    assert!(reply.json()["error"]
        .as_str()
        .unwrap()
        .contains("Save is off"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_new_file_is_created_by_the_first_save() {
    let dir = temp_dir("new");
    let file = dir.join("new.json");
    let server = serve(&[file.to_str().unwrap()]);
    let loaded = get(server.port, "/api/file").json();
    assert_eq!(loaded["exists"], false);
    assert_eq!(loaded["version"], "absent");
    let text = loaded["text"].as_str().unwrap();
    assert!(
        noisegraph::NoiseGraph::from_json(text).is_ok(),
        "a starter graph"
    );
    let saved = post(
        server.port,
        "/api/save",
        &json!({ "text": text, "base_version": "absent" }),
    );
    assert_eq!(saved.status, 200);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
    // A folder that does not exist is refused at start.
    let out = Command::new(BIN)
        .args([
            "serve",
            dir.join("no/such/g.json").to_str().unwrap(),
            "--port",
            "0",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("does not exist"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bind_warns_and_a_busy_port_is_a_clear_error() {
    let server = serve(&[]);
    let out = Command::new(BIN)
        .args(["serve", "--port", &server.port.to_string()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--port"), "{err}");

    let mut child = Command::new(BIN)
        .args([
            "serve",
            "--bind",
            "0.0.0.0",
            "--port",
            "0",
            "--backend",
            "cpu",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let _ = child.kill();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("warning: --bind 0.0.0.0"), "{err}");
    assert!(line.contains("http://127.0.0.1:"), "{line}");
}

/// The flow view's `gradient` and `curl` modes: the preview carries, after its samples, two
/// f32 per pixel that are what `bake --output gradient|curl` writes (the samples still the
/// value bake's); a node that cannot be differentiated is refused at `flow`, naming it.
#[test]
fn flow_modes_carry_the_exact_gradient_and_curl() {
    let server = serve(&[]);
    let modes = get(server.port, "/api/meta").json()["flow_modes"].clone();
    assert_eq!(modes, json!(["heading", "gradient", "curl"]));
    let dir = temp_dir("flow");
    let graph = json!({ "seed": 5, "output": "w", "nodes": [
        { "id": "p", "type": "perlin", "frequency": 3 },
        { "id": "f", "type": "fbm", "source": "p", "octaves": 4 },
        { "id": "c", "type": "cellular", "frequency": 4 },
        { "id": "w", "type": "warp", "source": "f", "displace": ["c", "p"], "amplitude": 0.1 }
    ]});
    let file = dir.join("g.json");
    std::fs::write(&file, graph.to_string()).unwrap();
    let (w, h) = (40usize, 24usize);
    let values = dir.join("v.npy");
    bake(&[
        file.to_str().unwrap(),
        "-o",
        values.to_str().unwrap(),
        "--size",
        "40x24",
        "--origin",
        "2.5,-1",
        "--extent",
        "2,1.5",
    ]);
    let values = read_npy(&values);
    for (mode, channels) in [("gradient", 3), ("curl", 2)] {
        let view = json!({ "graph": graph, "size": [w, h], "origin": ["2.5", "-1"],
            "extent": ["2", "1.5"], "flow": mode });
        let reply = post(server.port, "/api/render", &view);
        assert_eq!(
            reply.status,
            200,
            "{mode}: {}",
            String::from_utf8_lossy(&reply.body)
        );
        let (header, samples) = unpack(&reply.body);
        assert_eq!(header["flow"], json!({ "mode": mode, "components": 2 }));
        assert_eq!(header["extent"], json!([2.0, 1.5]));
        assert_eq!(samples.len(), w * h * 3, "{mode}: samples then vectors");
        assert_eq!(
            samples[..w * h],
            values[..],
            "{mode}: the samples are the value bake"
        );
        let npy = dir.join(format!("{mode}.npy"));
        bake(&[
            file.to_str().unwrap(),
            "-o",
            npy.to_str().unwrap(),
            "--size",
            "40x24",
            "--origin",
            "2.5,-1",
            "--extent",
            "2,1.5",
            "--output",
            mode,
        ]);
        let baked = read_npy(&npy);
        let expected: Vec<f32> = baked
            .chunks(channels)
            .flat_map(|s| [s[channels - 2], s[channels - 1]])
            .collect();
        assert_eq!(samples[w * h..], expected[..], "{mode}: the baked vectors");
        assert!(expected.iter().any(|v| *v != 0.0));
    }
    // The heading mode needs no vectors.
    let view = json!({ "graph": graph, "size": [8, 8], "flow": "heading" });
    let (header, samples) = unpack(&post(server.port, "/api/render", &view).body);
    assert!(header["flow"].is_null());
    assert_eq!(samples.len(), 64);
    // Simplex's classic falloff jumps: no gradient, refused at `flow` with the node's name;
    // its values still render in the heading mode.
    let classic = json!({ "seed": 1, "output": "f", "nodes": [
        { "id": "s", "type": "simplex", "dims": 3, "falloff": "classic", "frequency": 2 },
        { "id": "f", "type": "fbm", "source": "s", "octaves": 2 }
    ]});
    let reply = post(
        server.port,
        "/api/render",
        &json!({ "graph": classic, "size": [8, 8], "flow": "curl" }),
    );
    assert_eq!(reply.status, 422);
    let errors = reply.json()["errors"].clone();
    assert_eq!(errors[0]["field"], "flow", "{errors}");
    let message = errors[0]["message"].as_str().unwrap();
    for part in [
        "'curl'",
        "node 'f'",
        "'s'",
        "falloff 'classic'",
        "'heading'",
    ] {
        assert!(message.contains(part), "'{part}' missing from: {message}");
    }
    let reply = post(
        server.port,
        "/api/render",
        &json!({ "graph": classic, "size": [8, 8], "flow": "heading" }),
    );
    assert_eq!(reply.status, 200);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_editors_routes_export_thumbnails_costs_and_wgsl() {
    let server = serve(&[]);
    let dir = temp_dir("editor");
    let graph = json!({ "seed": 4, "output": "f", "layout": { "p": [0, 0] }, "nodes": [
        { "id": "p", "type": "perlin", "frequency": 3 },
        { "id": "f", "type": "fbm", "source": "p", "octaves": 3 }] });
    let file = dir.join("g.json");
    std::fs::write(&file, graph.to_string()).unwrap();
    // Every bake format, byte for byte what `bake --format` writes (PNG: its pixels).
    for format in ["png", "png16", "exr", "npy"] {
        let view =
            json!({ "graph": graph, "size": [24, 16], "origin": ["0.5", 2], "format": format });
        let reply = post(server.port, "/api/export", &view);
        assert_eq!(reply.status, 200, "{format}: {}", reply.head);
        let ext = if format == "png16" { "png" } else { format };
        let baked = dir.join(format!("f-{format}.{ext}"));
        bake(&[
            file.to_str().unwrap(),
            "-o",
            baked.to_str().unwrap(),
            "--size",
            "24x16",
            "--origin",
            "0.5,2",
            "--format",
            format,
        ]);
        let expected = std::fs::read(&baked).unwrap();
        match format {
            "png" | "png16" => {
                assert_eq!(png_pixels(&reply.body), png_pixels(&expected), "{format}")
            }
            "npy" => assert_eq!(reply.body, expected, "npy"),
            _ => assert_eq!(&reply.body[..4], &expected[..4], "exr magic"),
        }
    }
    let bad = post(
        server.port,
        "/api/export",
        &json!({ "graph": graph, "format": "tiff" }),
    );
    assert_eq!(bad.status, 422);
    assert!(String::from_utf8_lossy(&bad.body).contains("format"));

    let thumbs = post(
        server.port,
        "/api/thumbnails",
        &json!({ "graph": graph, "size": [8, 8] }),
    )
    .json();
    let list = thumbs["thumbnails"].as_array().unwrap();
    assert_eq!(list.len(), 2);
    assert!(list
        .iter()
        .all(|t| t["gray"].as_array().unwrap().len() == 64));
    let costs = post(
        server.port,
        "/api/costs",
        &json!({ "graph": graph, "size": [16, 16] }),
    )
    .json();
    assert!(costs["costs"]
        .as_array()
        .unwrap()
        .iter()
        .all(|c| c["total_ms"].as_f64().unwrap() > 0.0));
    let wgsl = post(
        server.port,
        "/api/wgsl",
        &json!({ "graph": graph, "node": "p" }),
    )
    .json();
    assert!(wgsl["source"].as_str().unwrap().contains("fn p("));
    let _ = std::fs::remove_dir_all(&dir);
}
