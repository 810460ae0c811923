//! `noisegraph serve [GRAPH.json]`: a live preview playground in the browser. A local HTTP
//! server hands out one page (plain HTML/JS/CSS embedded at build time) whose controls are
//! built from the engine's own metadata, renders each change with the engine, and writes
//! back the one graph file named on the command line.
//!
//! Routes: `GET /` (the page), `/page/NAME.js` (its ES modules, [`PAGE_MODULES`]),
//! `/page.css`, `GET /api/meta` (the engine's node schema, flow modes, the file, the backend), `GET /api/presets`, `GET /api/file`
//! (text and version), `GET /api/file/version` (polled by the page), `POST /api/render`
//! (the preview: JSON statistics and f32 samples, see `render::pack`), `POST /api/png`
//! (what `bake` writes for the same view), `POST /api/export` (the same in any format `bake`
//! writes), `POST /api/thumbnails` and `POST /api/costs` (per node, see `nodes`),
//! `POST /api/parity` (GPU versus CPU per node), `POST /api/wgsl` (a node's WGSL module),
//! `POST /api/save`.

mod graph_file;
mod http;
mod meta;
mod nodes;
mod render;

use std::io::Write;
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpListener};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use clap::Args;
use noisegraph::io::Format;
use noisegraph::{Backend, Executor, NoiseGraph};
use serde::Deserialize;
use serde_json::{json, Value};

use self::graph_file::{GraphFile, MAX_GRAPH_BYTES};
use self::http::{Limits, Request, Response};
use self::render::{PreviewRequest, RenderQueue};
use super::Failure;

#[derive(Args)]
pub struct ServeArgs {
    /// The graph file to edit. Save writes it back (atomically; no other file is ever
    /// written), and the page reloads it when it changes on disk. A file that does not exist
    /// yet is created by the first Save. Without a file, Save is off (download the JSON).
    pub graph: Option<PathBuf>,
    /// Port to listen on; 0 picks a free one (the printed URL says which).
    #[arg(long, default_value_t = 8765)]
    pub port: u16,
    /// Address to listen on. The default, 127.0.0.1, accepts connections from this machine
    /// only; any other address lets other machines reach the server, which has no
    /// authentication (a warning says so).
    #[arg(long, value_name = "ADDR")]
    pub bind: Option<IpAddr>,
    /// auto: a GPU adapter when there is a real one, else the CPU path; gpu; cpu.
    #[arg(long, default_value = "auto")]
    pub backend: String,
}

/// What a client may send and hold (see `http::Limits`): a graph is at most
/// `MAX_GRAPH_BYTES`, and a request body carries one graph and a few view fields.
const LIMITS: Limits = Limits {
    head_bytes: 16 * 1024,
    body_bytes: MAX_GRAPH_BYTES + 64 * 1024,
    idle: Duration::from_secs(30),
    connections: 32,
};

/// The graph a page starts with when no file is given or the file does not exist yet: the
/// README's fBm terrain.
const STARTER_GRAPH: &str = r#"{
  "seed": 1337,
  "output": "terrain",
  "nodes": [
    { "id": "base", "type": "perlin", "frequency": 3.0 },
    { "id": "terrain", "type": "fbm", "source": "base", "octaves": 8, "lacunarity": 2.0, "gain": 0.5 }
  ]
}
"#;

const PAGE_HTML: &str = include_str!("page/index.html");
const PAGE_CSS: &str = include_str!("page/page.css");

/// The page's ES modules, served at `/page/NAME` as they are (no build step; the browser
/// resolves their imports). `main.js` starts the page.
const PAGE_MODULES: &[(&str, &str)] = &[
    ("api.js", include_str!("page/api.js")),
    ("canvas.js", include_str!("page/canvas.js")),
    ("controls.js", include_str!("page/controls.js")),
    ("costs.js", include_str!("page/costs.js")),
    ("dom.js", include_str!("page/dom.js")),
    ("errors.js", include_str!("page/errors.js")),
    ("file.js", include_str!("page/file.js")),
    ("flow.js", include_str!("page/flow.js")),
    ("graph.js", include_str!("page/graph.js")),
    ("history.js", include_str!("page/history.js")),
    ("main.js", include_str!("page/main.js")),
    ("mesh.js", include_str!("page/mesh.js")),
    ("schema.js", include_str!("page/schema.js")),
    ("state.js", include_str!("page/state.js")),
    ("thumbs.js", include_str!("page/thumbs.js")),
    ("values.js", include_str!("page/values.js")),
    ("view.js", include_str!("page/view.js")),
];

/// The module served at `path` (`/page/NAME.js`), if it is one.
fn page_module(path: &str) -> Option<&'static str> {
    let name = path.strip_prefix("/page/")?;
    PAGE_MODULES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, source)| *source)
}

/// Which `Host` headers the server answers (DNS rebinding: a page from another site that
/// re-points its own name at 127.0.0.1 sends its own name as the host, and is refused).
struct HostPolicy {
    port: u16,
    bound: IpAddr,
}

impl HostPolicy {
    fn allows(&self, host: &str) -> bool {
        let (name, port) = match host.rsplit_once(':') {
            Some((n, p)) if !n.ends_with(':') && !p.contains(']') => (n, p.parse::<u16>().ok()),
            _ => (host, Some(80)),
        };
        if port != Some(self.port) {
            return false;
        }
        let name = name
            .strip_prefix('[')
            .and_then(|n| n.strip_suffix(']'))
            .unwrap_or(name);
        if name.eq_ignore_ascii_case("localhost") {
            return true;
        }
        match name.parse::<IpAddr>() {
            Ok(ip) => ip.is_loopback() || ip == self.bound || self.bound.is_unspecified(),
            Err(_) => false,
        }
    }
}

struct State {
    executor: Executor,
    backend: String,
    hosts: HostPolicy,
    file: Option<GraphFile>,
    queue: RenderQueue,
    /// Saves one at a time, so the version check and the write are not interleaved.
    saving: Mutex<()>,
    meta: String,
}

pub fn run(args: ServeArgs) -> Result<(), Failure> {
    let backend: Backend = args.backend.parse().map_err(Failure::bad_input)?;
    let file = args.graph.as_deref().map(GraphFile::open).transpose()?;
    let bind = args.bind.unwrap_or(IpAddr::V4(Ipv4Addr::LOCALHOST));
    let listener = TcpListener::bind(SocketAddr::new(bind, args.port)).map_err(|e| {
        Failure::bad_input(format!(
            "cannot listen on {}: {e} (choose another port with --port N; 0 picks a free one)",
            SocketAddr::new(bind, args.port)
        ))
    })?;
    let port = listener
        .local_addr()
        .map_err(|e| Failure::bad_input(format!("listening socket: {e}")))?
        .port();
    let (executor, why) = Executor::choose(backend)?;
    let backend = executor.describe();
    if let Some(why) = why {
        eprintln!("noisegraph: {why}");
    }
    eprintln!("noisegraph: previews render on the {backend}");
    if !bind.is_loopback() {
        eprintln!(
            "warning: --bind {bind}: other machines can reach this server, which has no \
             authentication: anyone who reaches it can use your CPU/GPU{}",
            file.as_ref()
                .map(|f| format!(" and overwrite {}", f.shown))
                .unwrap_or_default()
        );
    }
    match &file {
        Some(f) => eprintln!("noisegraph: editing {} (Save writes it)", f.shown),
        None => eprintln!("noisegraph: no graph file given: Save is off (download the JSON)"),
    }
    let meta = meta::metadata(file.as_ref().map(|f| f.shown.as_str()), &backend).to_string();
    let state = Arc::new(State {
        executor,
        backend,
        hosts: HostPolicy { port, bound: bind },
        file,
        queue: RenderQueue::default(),
        saving: Mutex::new(()),
        meta,
    });
    let shown_host = if bind.is_unspecified() {
        IpAddr::V4(Ipv4Addr::LOCALHOST)
    } else {
        bind
    };
    println!(
        "noisegraph: serving {} (Ctrl-C stops)",
        url(SocketAddr::new(shown_host, port))
    );
    let _ = std::io::stdout().flush();
    http::serve(
        listener,
        LIMITS,
        Arc::new(move |request: &Request| handle(&state, request)),
    );
    Ok(())
}

fn url(addr: SocketAddr) -> String {
    format!("http://{addr}/")
}

/// Refuses what this server never answers: other hosts (DNS rebinding), cross-site writes
/// (a POST from another origin, or without a JSON content type, which a cross-site form
/// could send without the browser asking first).
fn guard(state: &State, request: &Request) -> Option<Response> {
    let Some(host) = request.header("host") else {
        return Some(Response::text(400, "a Host header is required"));
    };
    if !state.hosts.allows(host) {
        return Some(Response::text(
            403,
            format!(
                "Host '{host}' is not this server (open http://127.0.0.1:{}/)",
                state.hosts.port
            ),
        ));
    }
    if request.method == "POST" {
        if let Some(origin) = request.header("origin") {
            if !origin.eq_ignore_ascii_case(&format!("http://{host}")) {
                return Some(Response::text(
                    403,
                    format!("requests from origin '{origin}' are refused"),
                ));
            }
        }
        let json = request
            .header("content-type")
            .is_some_and(|c| c.to_ascii_lowercase().starts_with("application/json"));
        if !json {
            return Some(Response::text(415, "POST bodies must be application/json"));
        }
    }
    None
}

fn handle(state: &State, request: &Request) -> Response {
    if let Some(refused) = guard(state, request) {
        return refused;
    }
    if let Some(module) = page_module(&request.path) {
        return match request.method.as_str() {
            "GET" => Response::bytes(200, "text/javascript; charset=utf-8", module.into()),
            _ => Response::text(
                405,
                format!("{} {}: method not allowed", request.method, request.path),
            ),
        };
    }
    match (request.method.as_str(), request.path.as_str()) {
        ("GET", "/") | ("GET", "/index.html") => {
            Response::bytes(200, "text/html; charset=utf-8", PAGE_HTML.into())
        }
        ("GET", "/page.css") => Response::bytes(200, "text/css; charset=utf-8", PAGE_CSS.into()),
        ("GET", "/favicon.ico") => Response::bytes(204, "image/x-icon", Vec::new()),
        ("GET", "/api/meta") => {
            Response::bytes(200, "application/json", state.meta.clone().into_bytes())
        }
        ("GET", "/api/presets") => presets(),
        ("GET", "/api/file") => file_text(state),
        ("GET", "/api/file/version") => file_version(state),
        ("POST", "/api/render") => preview(state, request, None),
        ("POST", "/api/png") => preview(state, request, Some(Format::Png)),
        ("POST", "/api/export") => export(state, request),
        ("POST", "/api/thumbnails") => per_node(state, request, false),
        ("POST", "/api/costs") => per_node(state, request, true),
        ("POST", "/api/parity") => parity(state, request),
        ("POST", "/api/wgsl") => wgsl(request),
        ("POST", "/api/save") => save(state, request),
        (_, "/" | "/index.html" | "/page.css" | "/api/meta" | "/api/presets")
        | (_, "/api/file" | "/api/file/version" | "/api/render" | "/api/png" | "/api/save")
        | (_, "/api/export" | "/api/thumbnails" | "/api/costs" | "/api/parity" | "/api/wgsl") => {
            Response::text(
                405,
                format!("{} {}: method not allowed", request.method, request.path),
            )
        }
        _ => Response::text(404, format!("{}: not found", request.path)),
    }
}

fn presets() -> Response {
    let list: Vec<Value> = noisegraph::presets::PRESETS
        .iter()
        .map(|p| json!({ "name": p.name, "description": p.description, "json": p.json }))
        .collect();
    Response::json(200, &Value::Array(list))
}

fn failure(status: u16, f: Failure) -> Response {
    Response::json(status, &json!({ "error": f.message }))
}

fn file_text(state: &State) -> Response {
    let Some(file) = &state.file else {
        return Response::json(
            200,
            &json!({ "path": null, "text": STARTER_GRAPH, "version": null, "exists": false }),
        );
    };
    match file.read() {
        Ok(bytes) => {
            let version = GraphFile::version_of(bytes.as_deref());
            let exists = bytes.is_some();
            let text = match bytes {
                Some(b) => String::from_utf8_lossy(&b).into_owned(),
                None => STARTER_GRAPH.to_string(),
            };
            Response::json(
                200,
                &json!({ "path": file.shown, "text": text, "version": version, "exists": exists }),
            )
        }
        Err(f) => failure(500, f),
    }
}

fn file_version(state: &State) -> Response {
    match &state.file {
        None => Response::json(200, &json!({ "version": null })),
        Some(file) => match file.version() {
            Ok(v) => Response::json(200, &json!({ "version": v })),
            Err(f) => failure(500, f),
        },
    }
}

fn parse_body<T: for<'de> Deserialize<'de>>(request: &Request) -> Result<T, Response> {
    serde_json::from_slice(&request.body).map_err(|e| {
        Response::json(
            400,
            &json!({ "error": format!("{}: request body: {e}", request.path) }),
        )
    })
}

/// `/api/export`: the view in the request's `format`.
fn export(state: &State, request: &Request) -> Response {
    let req: PreviewRequest = match parse_body(request) {
        Ok(r) => r,
        Err(response) => return response,
    };
    match Format::parse(req.format.as_deref().unwrap_or("png")) {
        Ok(format) => preview(state, request, Some(format)),
        Err(e) => Response::json(
            422,
            &json!({ "errors": [{ "node": null, "field": "format", "message": e.to_string() }] }),
        ),
    }
}

fn content_type(format: Format) -> &'static str {
    match format {
        Format::Png | Format::Png16 => "image/png",
        Format::Exr => "image/x-exr",
        Format::Npy => "application/octet-stream",
    }
}

/// Thumbnails (`costs` false) or costs of the request's nodes: one render at a time, as
/// previews; a page's newer thumbnail request drops its older one still waiting.
fn per_node(state: &State, request: &Request, costs: bool) -> Response {
    let req: nodes::NodesRequest = match parse_body(request) {
        Ok(r) => r,
        Err(response) => return response,
    };
    let session = req
        .session
        .as_deref()
        .map(|s| format!("{s}:{}", if costs { "costs" } else { "thumbnails" }));
    let generation = req.generation;
    let outcome = state.queue.run(session.as_deref(), generation, || {
        if costs {
            Ok(nodes::costs(&state.executor, &req, &state.backend))
        } else {
            nodes::thumbnails(&state.executor, &req)
        }
    });
    match outcome {
        None => Response::json(
            409,
            &json!({ "generation": generation, "superseded": true }),
        ),
        Some(Ok(mut answer)) => {
            answer["generation"] = json!(generation);
            Response::json(200, &answer)
        }
        Some(Err(message)) => Response::json(422, &json!({ "error": message })),
    }
}

fn parity(state: &State, request: &Request) -> Response {
    let req: PreviewRequest = match parse_body(request) {
        Ok(r) => r,
        Err(response) => return response,
    };
    let gpu = match nodes::parity_gpu(&state.executor) {
        Ok(gpu) => gpu,
        Err(message) => return Response::json(503, &json!({ "error": message })),
    };
    match state.queue.run(None, 0, || nodes::parity(&gpu, &req)) {
        Some(Ok(answer)) => Response::json(200, &answer),
        Some(Err(issues)) => {
            Response::json(422, &json!({ "errors": render::issues_json(&issues) }))
        }
        None => Response::json(409, &json!({ "superseded": true })),
    }
}

fn wgsl(request: &Request) -> Response {
    let req: nodes::WgslRequest = match parse_body(request) {
        Ok(r) => r,
        Err(response) => return response,
    };
    match nodes::wgsl(&req) {
        Ok(answer) => Response::json(200, &answer),
        Err(issues) => Response::json(422, &json!({ "errors": render::issues_json(&issues) })),
    }
}

/// A preview (`file` None: the page's binary message) or a file of the view in `file`'s
/// format.
fn preview(state: &State, request: &Request, file: Option<Format>) -> Response {
    let mut req: PreviewRequest = match parse_body(request) {
        Ok(r) => r,
        Err(response) => return response,
    };
    let as_png = file.is_some();
    if as_png {
        // The PNG is the values; the flow view's vectors would only cost time.
        req.flow = None;
    }
    let generation = req.generation;
    // A PNG download is not part of the page's sequence of previews: never superseded.
    let session = if as_png { None } else { req.session.as_deref() };
    let outcome = state.queue.run(session, generation, || {
        render::render(&state.executor, &req)
    });
    match outcome {
        None => Response::json(
            409,
            &json!({ "generation": generation, "superseded": true }),
        ),
        Some(Err(issues)) => Response::json(
            422,
            &json!({ "generation": generation, "errors": render::issues_json(&issues) }),
        ),
        Some(Ok(preview)) if as_png => {
            let format = file.unwrap_or(Format::Png);
            match render::encode(&preview, format) {
                Ok(bytes) => Response::bytes(200, content_type(format), bytes),
                Err(e) => Response::json(
                    500,
                    &json!({ "error": format!("{} encoding: {e}", format.name()) }),
                ),
            }
        }
        Some(Ok(preview)) => Response::bytes(
            200,
            "application/octet-stream",
            render::pack(&preview, generation, &state.backend),
        ),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SaveRequest {
    /// The graph's JSON text, written as given (the user's formatting kept).
    text: String,
    /// The version the page loaded; a file changed since then is not overwritten unless
    /// `force`.
    #[serde(default)]
    base_version: Option<String>,
    #[serde(default)]
    force: bool,
}

fn save(state: &State, request: &Request) -> Response {
    let Some(file) = &state.file else {
        return Response::json(
            403,
            &json!({ "error": "serve was started without a graph file, so Save is off: use Download JSON, or restart with `noisegraph serve GRAPH.json`" }),
        );
    };
    let req: SaveRequest = match parse_body(request) {
        Ok(r) => r,
        Err(response) => return response,
    };
    if let Err(e) = NoiseGraph::from_json(&req.text) {
        return Response::json(
            422,
            &json!({ "error": "the graph has problems; not saved", "errors": render::issues_json(&e.0) }),
        );
    }
    let _saving = state.saving.lock().unwrap_or_else(|e| e.into_inner());
    let current = match file.version() {
        Ok(v) => v,
        Err(f) => return failure(500, f),
    };
    if !req.force && req.base_version.as_deref() != Some(current.as_str()) {
        return Response::json(
            409,
            &json!({
                "error": format!("{} changed on disk since the page loaded it; not saved", file.shown),
                "conflict": true,
                "version": current,
            }),
        );
    }
    match file.save(&req.text) {
        Ok(version) => Response::json(200, &json!({ "version": version, "path": file.shown })),
        Err(f) => failure(500, f),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_policy_accepts_this_server_only() {
        let local = HostPolicy {
            port: 8765,
            bound: IpAddr::V4(Ipv4Addr::LOCALHOST),
        };
        for ok in [
            "127.0.0.1:8765",
            "localhost:8765",
            "LOCALHOST:8765",
            "[::1]:8765",
        ] {
            assert!(local.allows(ok), "{ok}");
        }
        for refused in [
            "evil.example:8765",
            "127.0.0.1.evil.example:8765",
            "localhost.:8765",
            "127.0.0.1:80",
            "127.0.0.1",
            "10.0.0.5:8765",
            "127.0.0.1:8765:1",
            "[::1]",
            "",
        ] {
            assert!(!local.allows(refused), "{refused}");
        }
        let lan = HostPolicy {
            port: 80,
            bound: "0.0.0.0".parse().unwrap(),
        };
        assert!(lan.allows("10.0.0.5"));
        assert!(lan.allows("[fe80::1]:80"));
        assert!(!lan.allows("printer.local"));
    }
}
