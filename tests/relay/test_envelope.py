"""The envelope on its own: ids echoed exactly, every frame shape answered, encodings that cannot fail."""

from __future__ import annotations

import orjson
import pytest

from ferrule.project import OpTimeout, ProjectRoot
from ferrule.relay.envelope import FrameRejected, encode_error, encode_result, parse_request


@pytest.fixture
def root(tmp_path):
    return ProjectRoot(tmp_path)


@pytest.mark.parametrize("request_id", ["a-1", 7, 0, -3, 2.5, "", "ünï"])
def test_caller_ids_are_echoed_exactly(root, request_id):
    line = orjson.dumps({"proto": 1, "id": request_id, "op": "init", "params": {}})
    request = parse_request(line, root)
    assert request.id == request_id
    answer = orjson.loads(encode_result(request.id, {}))
    assert answer == {"proto": 1, "id": request_id, "ok": True, "result": {}}


@pytest.mark.parametrize("request_id", [True, None, [1], {"a": 1}])
def test_ids_that_cannot_correlate_are_refused_with_null(root, request_id):
    line = orjson.dumps({"proto": 1, "id": request_id, "op": "init", "params": {}})
    with pytest.raises(FrameRejected) as caught:
        parse_request(line, root)
    assert caught.value.id is None and caught.value.error.kind == "protocol"


def test_missing_params_mean_empty_params(root):
    request = parse_request(b'{"proto":1,"id":1,"op":"shutdown"}', root)
    assert (request.op, request.params.to_json(), request.file) == ("shutdown", {}, None)


def test_a_missing_op_is_named(root):
    with pytest.raises(FrameRejected) as caught:
        parse_request(b'{"proto":1,"id":1}', root)
    assert "no `op`" in caught.value.error.message and "known ops" in caught.value.error.message


def test_proto_true_is_not_proto_1(root):
    with pytest.raises(FrameRejected) as caught:
        parse_request(b'{"proto":true,"id":1,"op":"init"}', root)
    assert "proto true" in caught.value.error.message


def test_a_result_that_cannot_be_encoded_becomes_an_error_frame():
    answer = orjson.loads(encode_result(3, {"bad": object()}))
    assert answer["id"] == 3 and answer["ok"] is False and answer["error"]["kind"] == "oracle-crashed"


def test_error_frames_carry_kind_message_and_recipe():
    answer = orjson.loads(encode_error("x", OpTimeout.for_op("type", 250)))
    assert answer["proto"] == 1 and answer["id"] == "x" and answer["ok"] is False
    assert set(answer["error"]) == {"kind", "message", "recipe"}
    assert answer["error"]["kind"] == "timeout" and "250 ms" in answer["error"]["recipe"]


def test_every_answer_is_one_line():
    assert encode_result(1, {"text": "a\nb"}).count(b"\n") == 1
    assert encode_error(None, OpTimeout.for_op("validate", 1)).endswith(b"}\n")


@pytest.mark.parametrize("position, named", [
    ({"line": 2**64 - 1, "character": 0}, "`position.line`"),
    ({"line": 1, "character": 2**63}, "`position.character`"),
    ({"line": 2**31 + 1, "character": 0}, "`position.line`"),
    ({"line": 1, "character": 2**31}, "`position.character`"),
])
def test_positions_past_what_lsp_carries_are_refused(root, position, named):
    line = orjson.dumps({"proto": 1, "id": 1, "op": "type", "params": {"file": "a.rs", "position": position}})
    with pytest.raises(FrameRejected) as caught:
        parse_request(line, root)
    assert caught.value.id == 1 and named in caught.value.error.message


def test_the_largest_lsp_position_passes(root):
    line = orjson.dumps({"proto": 1, "id": 1, "op": "type",
                         "params": {"file": "a.rs", "position": {"line": 2**31, "character": 2**31 - 1}}})
    assert parse_request(line, root).params.position.to_json() == {"line": 2**31, "character": 2**31 - 1}


@pytest.mark.parametrize("raw, shown", [
    (b'{"proto":1,"id":4,"op":"type","params":{"file":"a.rs","position":{"line":1e400,"character":0}}}', "inf"),
    (b'{"proto":1,"id":4,"op":"type","params":{"file":"a.rs","position":{"line":1180591620717411303424,'
     b'"character":0}}}', "1.18"),
])
def test_numbers_orjson_cannot_hold_still_get_their_id_back(root, raw, shown):
    with pytest.raises(FrameRejected) as caught:
        parse_request(raw, root)
    assert caught.value.id == 4 and "`position.line`" in caught.value.error.message
    assert shown in caught.value.error.message
    assert orjson.loads(encode_error(caught.value.id, caught.value.error))["id"] == 4


@pytest.mark.parametrize("field, value", [("timeout_ms", 2**40), ("max", 2**31), ("max", -1)])
def test_counts_are_bounded(root, field, value):
    params = {"file": "a.rs", "position": {"line": 1, "character": 0}, field: value}
    line = orjson.dumps({"proto": 1, "id": 1, "op": "complete", "params": params})
    with pytest.raises(FrameRejected) as caught:
        parse_request(line, root)
    assert f"`{field}`" in caught.value.error.message


@pytest.mark.parametrize("op, params, reads", [
    ("type", {"file": "src/lib.rs", "position": {"line": 1, "character": 0}}, True),
    ("complete", {"file": "src/lib.rs", "position": {"line": 1, "character": 0}}, True),
    ("scope", {"file": "src/lib.rs", "position": {"line": 1, "character": 0}}, True),
    ("scope", {"file": "src/lib.rs"}, False),  # shows a probe appended to the file
    ("type", {"file": "src/lib.rs", "position": {"line": 1, "character": 0}, "content": "x"}, False),
    ("validate", {"file": "src/lib.rs"}, False),
    ("update", {"file": "src/lib.rs", "content": None}, False),
])
def test_only_reads_names_the_ops_that_change_nothing(op, params, reads):
    request = parse_request(orjson.dumps({"proto": 1, "id": 1, "op": op, "params": params}))
    assert request.only_reads is reads


def test_integral_numbers_are_integers(root):
    # JavaScript clients have one number type and may send `17.0` for 17
    params = {"file": "a.rs", "position": {"line": 17.0, "character": 8.0}, "max": 5.0, "timeout_ms": 900.0}
    request = parse_request(orjson.dumps({"proto": 1, "id": 1, "op": "complete", "params": params}), root)
    assert request.params.to_json() == {"file": "a.rs", "position": {"line": 17, "character": 8}, "max": 5,
                                        "timeout_ms": 900}
    assert orjson.dumps(request.params.to_json()) == (
        b'{"file":"a.rs","position":{"line":17,"character":8},"max":5,"timeout_ms":900}')


@pytest.mark.parametrize("field, value, named", [
    ("position", {"line": 17.5, "character": 0}, "`position.line`"),
    ("position", {"line": 1, "character": 0.25}, "`position.character`"),
    ("max", 2.5, "`max`"),
    ("timeout_ms", 1e-3, "`timeout_ms`"),
])
def test_fractional_numbers_are_refused_by_name(root, field, value, named):
    params = {"file": "a.rs", "position": {"line": 1, "character": 0}, field: value}
    with pytest.raises(FrameRejected) as caught:
        parse_request(orjson.dumps({"proto": 1, "id": 1, "op": "complete", "params": params}), root)
    assert named in caught.value.error.message and "must be an integer" in caught.value.error.message


def test_a_lone_surrogate_in_text_is_refused_with_the_id_echoed(root):
    frame = b'{"proto":1,"id":7,"op":"validate","params":{"file":"src/lib.rs","content":"fn a() {}\\ud800"}}'
    with pytest.raises(FrameRejected) as caught:
        parse_request(frame, root)
    assert caught.value.id == 7 and "not Unicode text" in caught.value.error.message
    whole = b'{"proto":1,"id":8,"op":"validate","params":{"file":"src/lib.rs","content":"\\ud83d\\ude00"}}'
    assert parse_request(whole, root).params.content == "😀"  # a pair of escapes is one character


@pytest.mark.parametrize("op, params", [
    ("validate", {"file": "Cargo.toml"}),
    ("type", {"file": "README.md", "position": {"line": 1, "character": 0}}),
    ("definition", {"file": "Cargo.toml", "position": {"line": 1, "character": 0}}),
    ("symbols", {"file": "Cargo.toml"}),
])
def test_ops_that_read_rust_source_refuse_another_file(root, op, params):
    with pytest.raises(FrameRejected) as caught:
        parse_request(orjson.dumps({"proto": 1, "id": 1, "op": op, "params": params}), root)
    assert caught.value.error.kind == "protocol" and "not a Rust source file" in caught.value.error.message
    assert "src/lib.rs" in caught.value.error.recipe


def test_update_takes_any_file_of_the_project(root):
    # a Cargo.toml overlay is how an agent tries a dependency before saving it
    request = parse_request(orjson.dumps({"proto": 1, "id": 1, "op": "update",
                                          "params": {"file": "Cargo.toml", "content": "[package]\n"}}), root)
    assert request.params.file == "Cargo.toml"
