//! Assembler files: instructions one a line, labels, comments, `.text`; branches to labels
//! resolved once every instruction's length is known.

use std::borrow::Cow;
use std::collections::HashMap;

use super::text::code_of;
use super::{ParseError, Parsed, Parser};
use crate::isa::table::OperandClass;

/// One line of output: a label, or an instruction at its byte offset.
#[derive(Clone, Debug)]
pub enum Line {
    Label(String),
    Inst { offset: usize, parsed: Box<Parsed> },
}

/// The statement of a source line's code (comments removed: [`code_of`]), and a label it
/// defines.
fn split_line(code: &str) -> (Option<&str>, &str) {
    let code = code.trim();
    if let Some((label, rest)) = code.split_once(':')
        && !label.is_empty()
        && label
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$'))
        && !label.contains(' ')
        && (rest.is_empty() || rest.starts_with(' '))
    {
        return (Some(label), rest.trim());
    }
    (None, code)
}

/// Whether `word` names a label (not a register, number or keyword the parser reads).
fn label_reference<'a>(statement: &'a str, labels: &HashMap<&str, usize>) -> Option<&'a str> {
    let last = statement.rsplit([' ', ',']).next()?;
    labels.contains_key(last).then_some(last)
}

/// Assembles a whole file. Branch operands naming a label become the dword offset from the
/// next instruction, as LLVM's fixup resolves them.
pub fn assemble_file(parser: &Parser, source: &str) -> Result<Vec<Line>, ParseError> {
    // Each line's code, comments blanked or cut: columns in it are the line's.
    let code: Vec<Cow<'_, str>> = source.lines().map(code_of).collect();
    let source_lines = || code.iter().map(|c| &**c);
    let lines: Vec<(usize, Option<&str>, &str)> = source_lines()
        .enumerate()
        .map(|(n, l)| {
            let (label, statement) = split_line(l);
            (n + 1, label, statement)
        })
        .collect();
    let mut labels: HashMap<&str, usize> = HashMap::new();
    for &(_, label, _) in &lines {
        if let Some(label) = label {
            labels.insert(label, 0);
        }
    }
    let at_line = |n: usize, mut e: ParseError, original: &str, statement: &str| {
        e.line = n;
        // Columns count from the start of the source line.
        e.column += original.find(statement).unwrap_or(0);
        e
    };
    // Pass 1: lengths (a branch's own length does not depend on its target).
    let mut offset = 0;
    let mut sized: Vec<(usize, Option<&str>, &str, usize)> = Vec::new();
    for (&(n, label, statement), original) in lines.iter().zip(source_lines()) {
        if let Some(label) = label {
            labels.insert(label, offset);
        }
        if statement.is_empty() || statement.starts_with('.') {
            sized.push((n, label, "", offset));
            continue;
        }
        let text = match label_reference(statement, &labels) {
            Some(name) => format!(
                "{} 0",
                &statement[..statement.len() - name.len()].trim_end()
            ),
            None => statement.to_owned(),
        };
        let parsed = parser
            .parse(&text)
            .map_err(|e| at_line(n, e, original, statement))?;
        sized.push((n, label, statement, offset));
        offset += parsed.inst.len();
    }
    // Pass 2: with every label's offset known.
    let mut out = Vec::new();
    for ((n, label, statement, offset), original) in sized.into_iter().zip(source_lines()) {
        if let Some(label) = label {
            out.push(Line::Label(label.to_owned()));
        }
        if statement.is_empty() {
            continue;
        }
        let text = match label_reference(statement, &labels) {
            Some(name) => {
                let delta = (labels[name] as i64 - (offset as i64 + 4)) / 4;
                format!(
                    "{} {}",
                    statement[..statement.len() - name.len()].trim_end(),
                    delta as u16
                )
            }
            None => statement.to_owned(),
        };
        let parsed = parser
            .parse(&text)
            .map_err(|e| at_line(n, e, original, statement))?;
        if label_reference(statement, &labels).is_some()
            && parsed.encoding.operands.first().map(|o| o.class) != Some(OperandClass::SOPPBrTarget)
        {
            return Err(ParseError {
                line: n,
                column: 1,
                message: format!("a label is only a branch target: {statement}"),
                hint: None,
            });
        }
        out.push(Line::Inst {
            offset,
            parsed: Box::new(parsed),
        });
    }
    Ok(out)
}
