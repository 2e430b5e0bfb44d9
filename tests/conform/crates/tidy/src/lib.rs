//! A crate that follows every rule, with the built-in policy (no conform.toml).

/// Halves a number, rounding down; `None` for a negative one.
///
/// ```
/// assert_eq!(tidy::half(7), Some(3));
/// assert_eq!(tidy::half(-1), None);
/// ```
pub fn half(n: i32) -> Option<i32> {
    if n < 0 {
        None
    } else {
        Some(n / 2)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn halves() {
        assert_eq!(super::half(4).unwrap(), 2);
    }
}
