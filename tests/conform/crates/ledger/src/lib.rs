//! Ledger: a tiny book of accounts, used as a policy fixture.
//!
//! Lines the policy must flag end in a comment naming the rule; every other line must stay clean.

pub mod engine;
mod long;
pub mod report;
pub mod settings;

/// An amount in cents.
///
/// ```
/// let a = ledger::Cents::new(250);
/// assert_eq!(a.get(), 250);
/// ```
pub struct Cents(i64);

impl Cents {
    pub fn new(value: i64) -> Self {
        Cents(value)
    }

    pub fn get(&self) -> i64 {
        self.0
    }
}

/// An account name, without an example yet.
pub struct Account(pub String); // expect: seam-doctest

/// The opening balance: constants are data, not seams that need an example.
pub const OPENING: i64 = 0;

pub(crate) fn internal() -> i64 {
    OPENING
}

#[doc(hidden)]
pub fn hidden_helper() -> i64 {
    internal()
}

/// Parses an amount; a `text` block shows the format but is not a doctest.
///
/// ```text
/// 12.50
/// ```
pub fn parse_cents(text: &str) -> Option<Cents> { // expect: seam-doctest
    text.replace('.', "").parse().ok().map(Cents)
}

/// Sums amounts.
///
/// ```no_run
/// assert_eq!(ledger::total(&[1, 2]), 3);
/// ```
pub fn total(values: &[i64]) -> i64 {
    values.iter().sum()
}

/// Builds an amount.
#[macro_export]
macro_rules! cents { // expect: seam-doctest
    ($v:expr) => {
        $crate::Cents::new($v)
    };
}
