//! The module-scope declarations of the C-like source naga's GLSL, HLSL and MSL back ends
//! write, found with the WGSL export's tokenizer: which names an export declares (so that the
//! back ends' own helpers, such as HLSL's `naga_mod` or MSL's array wrappers `type_5`, get the
//! export's prefix too) and where each declaration starts and ends (so that the entry point
//! a back end needs can be cut out).

use std::collections::HashMap;

use super::wgsl::rename::{previous_significant, tokens, Token};

/// One module-scope declaration: a function, a struct, a constant, a global or a typedef.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    /// The name it declares.
    pub name: String,
    /// Its byte range in the source (from its first token to its closing `}` or `;`).
    pub span: std::ops::Range<usize>,
}

fn text<'a>(token: &Token<'a>) -> &'a str {
    match *token {
        Token::Ident(t) | Token::Other(t) => t,
    }
}

fn is_blank(token: &Token) -> bool {
    matches!(token, Token::Other(t) if t.trim().is_empty() || t.starts_with("//") || t.starts_with("/*"))
}

/// The declarations of `src` at module scope, in order. Preprocessor lines and `using`
/// declarations declare nothing here.
pub fn items(src: &str) -> Vec<Item> {
    let tokens = tokens(src);
    let mut offsets = Vec::with_capacity(tokens.len() + 1);
    let mut at = 0;
    for t in &tokens {
        offsets.push(at);
        at += text(t).len();
    }
    offsets.push(at);

    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        if is_blank(&tokens[i]) || tokens[i] == Token::Other(";") {
            i += 1;
            continue;
        }
        let start = i;
        if tokens[i] == Token::Other("#") {
            // A preprocessor line.
            while i < tokens.len() && !text(&tokens[i]).contains('\n') {
                i += 1;
            }
            continue;
        }
        let using = tokens[i] == Token::Ident("using");
        // GLSL's `layout(...)` qualifiers name nothing: skip them.
        while tokens.get(i) == Some(&Token::Ident("layout")) {
            i += 1;
            let mut depth = 0;
            while let Some(&t) = tokens.get(i) {
                i += 1;
                match t {
                    Token::Other("(") => depth += 1,
                    Token::Other(")") if depth == 1 => break,
                    Token::Other(")") => depth -= 1,
                    _ => {}
                }
            }
        }
        // The item: up to `;` at depth 0, or up to the `}` that closes a function body.
        let (mut braces, mut parens) = (0i32, 0i32);
        let mut name: Option<String> = None;
        let mut last_ident: Option<&str> = None;
        let mut function = false;
        while i < tokens.len() {
            let t = tokens[i];
            i += 1;
            match t {
                Token::Ident(id) if braces == 0 && parens == 0 => last_ident = Some(id),
                Token::Other(p) if braces == 0 && parens == 0 && name.is_none() => {
                    // `:` ends the name before an HLSL register or semantic, not in `::`.
                    let register = p == ":"
                        && tokens.get(i) != Some(&Token::Other(":"))
                        && (i < 2 || tokens[i - 2] != Token::Other(":"));
                    if register || matches!(p, "(" | "=" | "[" | "{" | ";") {
                        name = last_ident.map(str::to_string);
                        function = p == "(";
                    }
                }
                _ => {}
            }
            match t {
                Token::Other("{") => braces += 1,
                Token::Other("}") => {
                    braces -= 1;
                    if braces == 0 && parens == 0 && function {
                        break;
                    }
                }
                Token::Other("(") => parens += 1,
                Token::Other(")") => parens -= 1,
                Token::Other(";") if braces == 0 && parens == 0 => break,
                _ => {}
            }
        }
        if let (Some(name), false) = (name, using) {
            out.push(Item {
                name,
                span: offsets[start]..offsets[i],
            });
        }
    }
    out
}

/// `src` with every identifier in `map` replaced by its value, except members (after `.`)
/// and names qualified by a namespace (after `::`).
pub fn rename(src: &str, map: &HashMap<String, String>) -> String {
    let tokens = tokens(src);
    let mut out = String::with_capacity(src.len() + src.len() / 8);
    for (i, t) in tokens.iter().enumerate() {
        match *t {
            Token::Ident(name) => {
                let member = previous_significant(&tokens, i) == Some(Token::Other("."));
                let qualified = i >= 2
                    && tokens[i - 1] == Token::Other(":")
                    && tokens[i - 2] == Token::Other(":");
                match map.get(name) {
                    Some(new) if !member && !qualified => out.push_str(new),
                    _ => out.push_str(name),
                }
            }
            Token::Other(text) => out.push_str(text),
        }
    }
    out
}

/// `src` with every module-scope name that is not `name` and does not start with `name_`
/// (the back end's own helpers and types) prefixed with `name_`.
pub fn prefix_helpers(src: &str, name: &str) -> String {
    let prefix = format!("{name}_");
    let map: HashMap<String, String> = items(src)
        .into_iter()
        .filter(|item| item.name != name && !item.name.starts_with(&prefix))
        .map(|item| (item.name.clone(), format!("{prefix}{}", item.name)))
        .collect();
    rename(src, &map)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "#include <metal_stdlib>
using metal::uint;
struct type_5 {
    float inner[4];
};
typedef float ret_array[4];
static const float h_table[2] = { 1.0, 2.0 };
ByteAddressBuffer h_tables : register(t2, space1);
layout(std430, binding = 2) readonly buffer h_Tables { float h_tables_glsl[]; };
constant type_5 h_k = type_5 {1.0, 2.0, 3.0, 4.0};
int naga_mod(int lhs, int rhs) {
    return lhs % (rhs == 0 ? 1 : rhs);
}
float h(metal::float2 p) {
    type_5 t = h_k;
    return t.inner[naga_mod(1, 2)] + (p.x > 0.0 ? h_table[0] : naga_mod(0, 1));
}
void main() {
}
";

    #[test]
    fn finds_module_scope_items() {
        let names: Vec<String> = items(SAMPLE).into_iter().map(|i| i.name).collect();
        assert_eq!(
            names,
            [
                "type_5",
                "ret_array",
                "h_table",
                "h_tables",
                "h_Tables",
                "h_k",
                "naga_mod",
                "h",
                "main"
            ]
        );
        let main = items(SAMPLE).pop().unwrap();
        assert_eq!(&SAMPLE[main.span], "void main() {\n}");
    }

    #[test]
    fn prefixes_helpers_but_not_members_or_namespaces() {
        let out = prefix_helpers(SAMPLE, "h");
        assert!(
            out.contains("struct h_type_5 {\n    float inner[4];"),
            "{out}"
        );
        assert!(out.contains("h_type_5 t = h_k;"), "{out}");
        assert!(out.contains("t.inner[h_naga_mod(1, 2)]"), "{out}");
        assert!(out.contains("? h_table[0] : h_naga_mod(0, 1)"), "{out}");
        assert!(out.contains("using metal::uint;"), "{out}");
        assert!(out.contains("float h(metal::float2 p)"), "{out}");
    }
}
