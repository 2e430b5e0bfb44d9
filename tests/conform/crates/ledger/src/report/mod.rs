//! Reports: a seam file (mod.rs), so its pub items need doctests.

use std::env as environment;

#[cfg(test)]
mod tests;

/// Renders one line of a report.
pub fn render(name: &str, cents: i64) -> String { // expect: seam-doctest
    format!("{name:<WIDTH$}{cents:>8}")
}

/// Column width.
pub const WIDTH: usize = 12;

/// Width from the environment, falling back to WIDTH.
///
/// ```
/// assert!(ledger::report::width_from_env() > 0);
/// ```
pub fn width_from_env() -> usize {
    environment::var("LEDGER_WIDTH") // expect: env-outside-roots
        .ok()
        .and_then(|w| w.parse().ok())
        .unwrap_or(WIDTH)
}

pub(crate) fn crate_only() -> usize {
    WIDTH
}

mod inner {
    pub fn unreachable_from_outside() -> usize {
        super::crate_only()
    }
}

pub mod formats {
    /// The plain format.
    pub fn plain() -> &'static str { // expect: seam-doctest
        "plain"
    }

    pub fn width() -> usize { // expect: seam-doctest
        super::inner::unreachable_from_outside()
    }
}
