//! Generated helpers: a file over max_file_lines (120 in conform.toml). // expect: file-too-long
#![allow(dead_code)]
pub(crate) fn step_1(x: i64) -> i64 {
    x + 1
}
pub(crate) fn step_2(x: i64) -> i64 {
    x + 2
}
pub(crate) fn step_3(x: i64) -> i64 {
    x + 3
}
pub(crate) fn step_4(x: i64) -> i64 {
    x + 4
}
pub(crate) fn step_5(x: i64) -> i64 {
    x + 5
}
pub(crate) fn step_6(x: i64) -> i64 {
    x + 6
}
pub(crate) fn step_7(x: i64) -> i64 {
    x + 7
}
pub(crate) fn step_8(x: i64) -> i64 {
    x + 8
}
pub(crate) fn step_9(x: i64) -> i64 {
    x + 9
}
pub(crate) fn step_10(x: i64) -> i64 {
    x + 10
}
pub(crate) fn step_11(x: i64) -> i64 {
    x + 11
}
pub(crate) fn step_12(x: i64) -> i64 {
    x + 12
}
pub(crate) fn step_13(x: i64) -> i64 {
    x + 13
}
pub(crate) fn step_14(x: i64) -> i64 {
    x + 14
}
pub(crate) fn step_15(x: i64) -> i64 {
    x + 15
}
pub(crate) fn step_16(x: i64) -> i64 {
    x + 16
}
pub(crate) fn step_17(x: i64) -> i64 {
    x + 17
}
pub(crate) fn step_18(x: i64) -> i64 {
    x + 18
}
pub(crate) fn step_19(x: i64) -> i64 {
    x + 19
}
pub(crate) fn step_20(x: i64) -> i64 {
    x + 20
}
pub(crate) fn step_21(x: i64) -> i64 {
    x + 21
}
pub(crate) fn step_22(x: i64) -> i64 {
    x + 22
}
pub(crate) fn step_23(x: i64) -> i64 {
    x + 23
}
pub(crate) fn step_24(x: i64) -> i64 {
    x + 24
}
pub(crate) fn step_25(x: i64) -> i64 {
    x + 25
}
pub(crate) fn step_26(x: i64) -> i64 {
    x + 26
}
pub(crate) fn step_27(x: i64) -> i64 {
    x + 27
}
pub(crate) fn step_28(x: i64) -> i64 {
    x + 28
}
pub(crate) fn step_29(x: i64) -> i64 {
    x + 29
}
pub(crate) fn step_30(x: i64) -> i64 {
    x + 30
}
pub(crate) fn step_31(x: i64) -> i64 {
    x + 31
}
pub(crate) fn step_32(x: i64) -> i64 {
    x + 32
}
pub(crate) fn step_33(x: i64) -> i64 {
    x + 33
}
pub(crate) fn step_34(x: i64) -> i64 {
    x + 34
}
pub(crate) fn step_35(x: i64) -> i64 {
    x + 35
}
pub(crate) fn step_36(x: i64) -> i64 {
    x + 36
}
pub(crate) fn step_37(x: i64) -> i64 {
    x + 37
}
pub(crate) fn step_38(x: i64) -> i64 {
    x + 38
}
pub(crate) fn step_39(x: i64) -> i64 {
    x + 39
}
pub(crate) fn step_40(x: i64) -> i64 {
    x + 40
}
