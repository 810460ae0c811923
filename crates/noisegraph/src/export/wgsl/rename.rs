//! Renaming of WGSL source text: every module-scope name the engine's shader files declare
//! gets the export's prefix, so an exported module cannot collide with its user's names.
//!
//! A small tokenizer is enough: the shader files are ours (no `enable` directives, no names
//! that are also WGSL built-ins), and naga validates every exported module. Identifiers after
//! a `.` (members, swizzles) and the member names of struct bodies are left alone; everything
//! else matching a name in the map is replaced, so a local that shadows a module-scope name is
//! renamed consistently with its uses.

use std::collections::HashMap;

/// A piece of source text: an identifier, or anything else (kept as it is). The C-like
/// languages the other exports write tokenize the same way (`crate::export::c_names`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Token<'a> {
    Ident(&'a str),
    Other(&'a str),
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

fn is_ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Splits `src` into identifiers and other text (comments, numbers, punctuation and
/// whitespace come out as `Other`, numbers whole so that `1e5` or `2u` is no identifier).
pub(crate) fn tokens(src: &str) -> Vec<Token<'_>> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let start = i;
        let c = b[i];
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            out.push(Token::Other(&src[start..i]));
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(Token::Other(&src[start..i]));
        } else if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit))
        {
            // A number: digits, letters (hex digits, suffixes, exponent), dots, and a sign
            // right after an exponent letter.
            while i < b.len() {
                let d = b[i];
                let exponent_sign = (d == b'+' || d == b'-')
                    && matches!(b[i - 1], b'e' | b'E' | b'p' | b'P')
                    && !src[start..i].starts_with("0x");
                let hex_exponent_sign = (d == b'+' || d == b'-') && matches!(b[i - 1], b'p' | b'P');
                if is_ident_char(d) || d == b'.' || exponent_sign || hex_exponent_sign {
                    i += 1;
                } else {
                    break;
                }
            }
            out.push(Token::Other(&src[start..i]));
        } else if is_ident_start(c) {
            while i < b.len() && is_ident_char(b[i]) {
                i += 1;
            }
            out.push(Token::Ident(&src[start..i]));
        } else {
            // One character at a time (UTF-8 safe: other characters only occur in comments).
            i += src[i..].chars().next().map_or(1, char::len_utf8);
            out.push(Token::Other(&src[start..i]));
        }
    }
    out
}

/// The next token that is not whitespace or a comment, from index `i` on.
fn next_significant<'a>(tokens: &[Token<'a>], mut i: usize) -> Option<(usize, Token<'a>)> {
    while i < tokens.len() {
        match tokens[i] {
            Token::Other(t)
                if t.trim().is_empty() || t.starts_with("//") || t.starts_with("/*") =>
            {
                i += 1
            }
            t => return Some((i, t)),
        }
    }
    None
}

/// The previous significant token before index `i`.
pub(crate) fn previous_significant<'a>(tokens: &[Token<'a>], i: usize) -> Option<Token<'a>> {
    tokens[..i].iter().rev().copied().find(|t| match t {
        Token::Other(t) => !(t.trim().is_empty() || t.starts_with("//") || t.starts_with("/*")),
        Token::Ident(_) => true,
    })
}

/// The names `src` declares at module scope (`fn`, `const`, `struct`, `alias`, `override`,
/// `var`), in order.
pub fn declared_names(src: &str) -> Vec<String> {
    let tokens = tokens(src);
    let mut names = Vec::new();
    let mut depth = 0i32;
    let mut i = 0;
    while i < tokens.len() {
        match tokens[i] {
            Token::Other("{") => depth += 1,
            Token::Other("}") => depth -= 1,
            Token::Ident(kw @ ("fn" | "const" | "struct" | "alias" | "override" | "var"))
                if depth == 0 =>
            {
                let mut j = i + 1;
                if kw == "var" {
                    // Skip the address space: var<storage, read> name.
                    if let Some((k, Token::Other("<"))) = next_significant(&tokens, j) {
                        j = k;
                        while j < tokens.len() && tokens[j] != Token::Other(">") {
                            j += 1;
                        }
                        j += 1;
                    }
                }
                if let Some((k, Token::Ident(name))) = next_significant(&tokens, j) {
                    names.push(name.to_string());
                    i = k;
                }
            }
            _ => {}
        }
        i += 1;
    }
    names
}

/// `src` with every identifier found in `map` replaced by its value, except member accesses
/// (after a `.`) and the member names of struct bodies.
pub fn rename(src: &str, map: &HashMap<String, String>) -> String {
    let tokens = tokens(src);
    let mut out = String::with_capacity(src.len() + src.len() / 4);
    let mut depth = 0i32;
    // Brace depth of the struct body being read, if any.
    let mut struct_body: Option<i32> = None;
    let mut struct_pending = false;
    for (i, &token) in tokens.iter().enumerate() {
        match token {
            Token::Other(text) => {
                if text == "{" {
                    depth += 1;
                    if struct_pending {
                        struct_body = Some(depth);
                        struct_pending = false;
                    }
                } else if text == "}" {
                    if struct_body == Some(depth) {
                        struct_body = None;
                    }
                    depth -= 1;
                }
                out.push_str(text);
            }
            Token::Ident(name) => {
                if name == "struct" {
                    struct_pending = true;
                }
                let after_dot = previous_significant(&tokens, i) == Some(Token::Other("."));
                let member_name = struct_body == Some(depth)
                    && next_significant(&tokens, i + 1).map(|(_, t)| t) == Some(Token::Other(":"));
                match map.get(name) {
                    Some(new) if !after_dot && !member_name => out.push_str(new),
                    _ => out.push_str(name),
                }
            }
        }
    }
    out
}

/// `src` with every `array[index]` access rewritten as `accessor(u32(index))`: how family code
/// written against the engine's `aux` binding reads a table the export places elsewhere.
pub fn rewrite_indexing(src: &str, array: &str, accessor: &str) -> String {
    let tokens = tokens(src);
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    while i < tokens.len() {
        let opens = matches!(tokens[i], Token::Ident(n) if n == array)
            && previous_significant(&tokens, i) != Some(Token::Other("."))
            && next_significant(&tokens, i + 1).map(|(_, t)| t) == Some(Token::Other("["));
        if !opens {
            match tokens[i] {
                Token::Ident(t) | Token::Other(t) => out.push_str(t),
            }
            i += 1;
            continue;
        }
        let (open, _) = next_significant(&tokens, i + 1).expect("checked above");
        let mut level = 0;
        let mut close = open;
        for (k, t) in tokens.iter().enumerate().skip(open) {
            match t {
                Token::Other("[") => level += 1,
                Token::Other("]") => {
                    level -= 1;
                    if level == 0 {
                        close = k;
                        break;
                    }
                }
                _ => {}
            }
        }
        let inner: String = tokens[open + 1..close]
            .iter()
            .map(|t| match t {
                Token::Ident(s) | Token::Other(s) => *s,
            })
            .collect();
        // The index itself may read the array (nested accesses).
        let inner = rewrite_indexing(&inner, array, accessor);
        out.push_str(&format!("{accessor}(u32({inner}))"));
        i = close + 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "
// hash and fade
const PRIME: u32 = 2654435761u;
struct NoiseGrad { value: f32, d: vec4<f32> }
@group(0) @binding(1) var<storage, read> aux: array<f32>;
fn fade(t: f32) -> f32 { return t * 1e-5 + 0x1fu; }
fn user(g: NoiseGrad) -> f32 {
    let fade = fade(g.value);
    let v = NoiseGrad(fade, vec4<f32>(aux[u32(aux[0u])], 2.5e+3, 0.0, 0.0));
    return v.value * f32(PRIME) + v.d.x;
}
";

    #[test]
    fn finds_module_scope_declarations() {
        assert_eq!(
            declared_names(SAMPLE),
            ["PRIME", "NoiseGrad", "aux", "fade", "user"]
        );
    }

    #[test]
    fn renames_declarations_and_uses_but_not_members() {
        let map: HashMap<String, String> = declared_names(SAMPLE)
            .into_iter()
            .map(|n| (n.clone(), format!("h_{n}")))
            .collect();
        let out = rename(SAMPLE, &map);
        assert!(
            out.contains("struct h_NoiseGrad { value: f32, d: vec4<f32> }"),
            "{out}"
        );
        assert!(out.contains("fn h_fade(t: f32) -> f32 { return t * 1e-5 + 0x1fu; }"));
        assert!(out.contains("let h_fade = h_fade(g.value);"), "{out}");
        assert!(
            out.contains("return v.value * f32(h_PRIME) + v.d.x;"),
            "{out}"
        );
        assert!(out.contains("// hash and fade"));
        assert!(out.contains("var<storage, read> h_aux"));
    }

    #[test]
    fn rewrites_indexing_with_nesting() {
        let out = rewrite_indexing("let a = aux[i + 1u] * aux[u32(aux[0u])];", "aux", "t0");
        assert_eq!(out, "let a = t0(u32(i + 1u)) * t0(u32(u32(t0(u32(0u)))));");
    }
}
