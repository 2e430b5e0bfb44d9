//! Posting entries: the domain code of the fixture, with every unwrap case the policy decides.

use std::collections::HashMap;

#[derive(Default)]
pub struct Book {
    balances: HashMap<String, i64>,
}

impl Book {
    pub fn new() -> Self {
        Book::default()
    }

    pub fn balance(&self, account: &str) -> i64 {
        *self.balances.get(account).unwrap() // expect: unwrap-outside-tests
    }

    pub fn post(&mut self, account: &str, amount: i64) {
        let entry = self.balances.entry(account.to_string()).or_insert(0);
        *entry = entry.checked_add(amount).expect("balance overflow"); // expect: unwrap-outside-tests
    }

    pub fn first_account(&self) -> String {
        let keys: Vec<&String> = self.balances.keys().collect();
        Option::unwrap(keys.first().copied()).clone() // expect: unwrap-outside-tests
    }

    pub fn describe(&self, account: &str) -> String {
        format!("{}: {}", account, self.balances.get(account).copied().unwrap()) // expect: unwrap-outside-tests
    }

    pub fn names(&self, names: &[Option<&str>]) -> Vec<String> {
        names.iter().copied().map(Option::unwrap).map(str::to_string).collect() // expect: unwrap-outside-tests
    }

    pub fn quiet(&self) -> &'static str {
        // A comment that mentions self.balances.get(x).unwrap() is not code.
        "a string that says x.unwrap() is not code either"
    }

    pub fn safe(&self, account: &str) -> i64 {
        self.balances.get(account).copied().unwrap_or(0)
    }

    #[allow(clippy::unwrap_used)]
    pub fn deliberate(&self) -> i64 {
        *self.balances.values().next().unwrap()
    }

    #[expect(clippy::expect_used, reason = "callers post before they read")]
    pub fn deliberate_expect(&self) -> i64 {
        *self.balances.values().next().expect("non-empty")
    }

    #[allow(clippy::unwrap_used)]
    pub fn wrong_lint(&self) -> i64 {
        *self.balances.values().next().expect("only unwrap_used is allowed") // expect: unwrap-outside-tests
    }

    pub fn statement_level(&self) -> i64 {
        #[allow(clippy::unwrap_used)]
        let first = *self.balances.values().next().unwrap();
        first
    }
}

#[cfg_attr(test, allow(clippy::unwrap_used))]
pub fn conditional(value: Option<i64>) -> i64 {
    value.unwrap() // expect: unwrap-outside-tests
}

pub fn parse_number(text: &str) -> i64 {
    text.trim().parse::<i64>().unwrap() // expect: unwrap-outside-tests
}

pub fn home() -> Option<String> {
    std::env::var("HOME").ok() // expect: env-outside-roots
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn posts() {
        let mut book = Book::new();
        book.post("cash", 5);
        let check = |name: &str| book.balances.get(name).copied().unwrap();
        assert_eq!(check("cash"), 5);
        assert_eq!(Some(1).unwrap(), helper());
        let _ = std::env::var("CI");
    }

    fn helper() -> i64 {
        Some(1).expect("helpers in a test module are test code")
    }
}

#[test]
fn top_level_test() {
    assert_eq!(parse_number(" 7 "), Some(7).unwrap());
}
