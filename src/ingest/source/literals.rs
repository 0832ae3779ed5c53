//! Float literals a line of CUDA writes as doubles (`1.0001`, `.5`, `2e-3`), and the line
//! with each given the `f` suffix: the mechanical fix for float math promoted to double.

/// The line with an `f` after every floating literal that has no suffix, or `None` when it
/// has none. Integers, hexadecimal numbers, suffixed literals (`0.5f`, `1.0L`), digits
/// inside names and anything after `//` are left as they are.
pub fn float_suffixed(line: &str) -> Option<String> {
    let code_end = line.find("//").unwrap_or(line.len());
    let bytes = line.as_bytes();
    let mut out = String::with_capacity(line.len() + 4);
    let (mut i, mut changed) = (0, false);
    while i < code_end {
        let starts_number = bytes[i].is_ascii_digit()
            || (bytes[i] == b'.' && bytes.get(i + 1).is_some_and(u8::is_ascii_digit));
        let after_word = i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
        if !starts_number || after_word {
            let c = line[i..].chars().next().unwrap_or(' ');
            out.push(c);
            i += c.len_utf8();
            continue;
        }
        let end = number_end(bytes, i, code_end);
        let token = &line[i..end];
        out.push_str(token);
        let floating = !token.starts_with("0x")
            && !token.starts_with("0X")
            && (token.contains('.') || token.contains(['e', 'E']));
        let next = bytes.get(end).copied().unwrap_or(b' ');
        if floating && !(next.is_ascii_alphanumeric() || next == b'_') {
            out.push('f');
            changed = true;
        }
        i = end;
    }
    out.push_str(&line[code_end..]);
    changed.then_some(out)
}

/// Where the number starting at `start` ends: digits and a point, an exponent with its
/// sign, or a hexadecimal number's digits.
fn number_end(bytes: &[u8], start: usize, limit: usize) -> usize {
    let mut i = start;
    if bytes[i..limit].starts_with(b"0x") || bytes[i..limit].starts_with(b"0X") {
        i += 2;
        while i < limit && bytes[i].is_ascii_hexdigit() {
            i += 1;
        }
        return i;
    }
    while i < limit && (bytes[i].is_ascii_digit() || bytes[i] == b'.') {
        i += 1;
    }
    if i < limit && (bytes[i] == b'e' || bytes[i] == b'E') {
        let mut j = i + 1;
        if j < limit && (bytes[j] == b'+' || bytes[j] == b'-') {
            j += 1;
        }
        if j < limit && bytes[j].is_ascii_digit() {
            i = j;
            while i < limit && bytes[i].is_ascii_digit() {
                i += 1;
            }
        }
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsuffixed_float_literals_get_an_f() {
        assert_eq!(
            float_suffixed("for (int k = 0; k < STEPS; ++k) y = y * 1.0001 + 0.5;").as_deref(),
            Some("for (int k = 0; k < STEPS; ++k) y = y * 1.0001f + 0.5f;")
        );
        assert_eq!(
            float_suffixed("y = y * .5 + 2e-3 + 1.E5;").as_deref(),
            Some("y = y * .5f + 2e-3f + 1.E5f;")
        );
        assert_eq!(
            float_suffixed("out[i] = sin(in[i] * 0.5);").as_deref(),
            Some("out[i] = sin(in[i] * 0.5f);")
        );
    }

    #[test]
    fn integers_suffixed_literals_names_and_comments_stay() {
        for line in [
            "y = y * 0.999f + 2;",
            "x = 1.0L * v[0x1F] + a2.5;",
            "float3 v = make_float3(x, y, z);  // scaled by 1.5 later",
            "int n = 1e3_km;",
        ] {
            assert_eq!(float_suffixed(line), None, "{line}");
        }
        assert_eq!(
            float_suffixed("y = 0.5 * y;  // was 0.25").as_deref(),
            Some("y = 0.5f * y;  // was 0.25")
        );
    }
}
