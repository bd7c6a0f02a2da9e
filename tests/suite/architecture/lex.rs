//! Reading Rust source as tokens: identifiers and the punctuation of paths, with comments,
//! string and character literals left out (what the architecture test reads imports from).

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Tok {
    Ident(String),
    PathSep,
    Open,
    Close,
    Comma,
    Star,
    Semi,
    Other(char),
}

#[derive(Debug, Clone)]
pub(super) struct Token {
    pub(super) tok: Tok,
    pub(super) line: usize,
}

pub(super) fn lex(src: &str) -> Vec<Token> {
    let chars: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut line = 1;
    let mut i = 0;
    let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\n' => {
                line += 1;
                i += 1;
            }
            c if c.is_whitespace() => i += 1,
            '/' if at(i + 1) == '/' => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '/' if at(i + 1) == '*' => {
                let mut depth = 0;
                while i < chars.len() {
                    if chars[i] == '/' && at(i + 1) == '*' {
                        depth += 1;
                        i += 2;
                    } else if chars[i] == '*' && at(i + 1) == '/' {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        if chars[i] == '\n' {
                            line += 1;
                        }
                        i += 1;
                    }
                }
            }
            '"' => i = skip_string(&chars, i + 1, &mut line),
            '\'' => {
                // A character literal ('a', '\n', '"'), else a lifetime or a label.
                if at(i + 1) == '\\' {
                    i += 2;
                    while i < chars.len() && chars[i] != '\'' {
                        i += 1;
                    }
                    i += 1;
                } else if at(i + 2) == '\'' {
                    i += 3;
                } else {
                    i += 1;
                }
            }
            c if c.is_alphabetic() || c == '_' => {
                let start = i;
                while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
                let word: String = chars[start..i].iter().collect();
                let raw_string = matches!(word.as_str(), "r" | "br" | "cr")
                    && (at(i) == '"'
                        || (at(i) == '#' && chars[i..].iter().find(|&&c| c != '#') == Some(&'"')));
                if raw_string {
                    let hashes = chars[i..].iter().take_while(|&&c| c == '#').count();
                    i += hashes + 1;
                    loop {
                        if i >= chars.len() {
                            break;
                        }
                        if chars[i] == '"'
                            && chars[i + 1..]
                                .iter()
                                .take(hashes)
                                .filter(|&&c| c == '#')
                                .count()
                                == hashes
                        {
                            i += 1 + hashes;
                            break;
                        }
                        if chars[i] == '\n' {
                            line += 1;
                        }
                        i += 1;
                    }
                } else if matches!(word.as_str(), "b" | "c") && at(i) == '"' {
                    i = skip_string(&chars, i + 1, &mut line);
                } else if word == "b" && at(i) == '\'' {
                    i += 1;
                    while i < chars.len() && chars[i] != '\'' {
                        if chars[i] == '\\' {
                            i += 1;
                        }
                        i += 1;
                    }
                    i += 1;
                } else if word == "r"
                    && at(i) == '#'
                    && (at(i + 1).is_alphabetic() || at(i + 1) == '_')
                {
                    // A raw identifier: r#type.
                    i += 1;
                    let start = i;
                    while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                        i += 1;
                    }
                    out.push(Token {
                        tok: Tok::Ident(chars[start..i].iter().collect()),
                        line,
                    });
                } else {
                    out.push(Token {
                        tok: Tok::Ident(word),
                        line,
                    });
                }
            }
            c if c.is_ascii_digit() => {
                while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
            }
            ':' if at(i + 1) == ':' => {
                out.push(Token {
                    tok: Tok::PathSep,
                    line,
                });
                i += 2;
            }
            _ => {
                let tok = match c {
                    '{' => Tok::Open,
                    '}' => Tok::Close,
                    ',' => Tok::Comma,
                    '*' => Tok::Star,
                    ';' => Tok::Semi,
                    c => Tok::Other(c),
                };
                out.push(Token { tok, line });
                i += 1;
            }
        }
    }
    out
}

/// Past the closing quote of a string whose opening quote is before `i`.
fn skip_string(chars: &[char], mut i: usize, line: &mut usize) -> usize {
    while i < chars.len() {
        match chars[i] {
            '\\' => {
                if chars.get(i + 1) == Some(&'\n') {
                    *line += 1;
                }
                i += 2;
            }
            '"' => return i + 1,
            c => {
                if c == '\n' {
                    *line += 1;
                }
                i += 1;
            }
        }
    }
    i
}

pub(super) fn ident(t: Option<&Token>) -> Option<&str> {
    match t {
        Some(Token {
            tok: Tok::Ident(s), ..
        }) => Some(s),
        _ => None,
    }
}
