#[test]
fn parses_an_order_line() {
    let (id, qty) = demo_crate::parse_line("42 x2").unwrap();
    assert_eq!((id.get(), qty.get()), (42, 2));
}
