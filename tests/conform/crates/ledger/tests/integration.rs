//! Integration tests: under tests/, so unwrap and env reads are fine.

#[test]
fn book_posts() {
    let mut book = ledger::engine::Book::new();
    book.post("cash", 3);
    assert_eq!(book.balance("cash"), 3);
    assert_eq!(ledger::parse_cents("1.50").map(|c| c.get()).unwrap(), 150);
    let _ = std::env::var("HOME").unwrap_or_default();
}
