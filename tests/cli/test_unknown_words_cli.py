"""A mistyped command or option is answered with the nearest valid name and where `--help` lists
them all, in one `error:` line (tools/cli/unknown_words.cpp; the distance: tessera/nearest_name.h)."""
import pytest


@pytest.mark.parametrize("args,wrong,nearest,where", [
    (["inof", "f32[3]"], "unknown command 'inof'", "did you mean 'info'?", "'tessera --help' lists the commands"),
    (["expalin", "f32[3]"], "unknown command 'expalin'", "did you mean 'explain'?", "'tessera --help'"),
    (["npu", "infp", "--shape", "1,1,1,1"], "unknown command 'infp'", "did you mean 'info'?",
     "'tessera npu --help' lists the commands"),
    (["info", "--taget", "tpu", "f32[3]"], "unknown option '--taget' of 'tessera info'", "did you mean '--target'?",
     "'tessera info --help' lists its options"),
    (["explain", "f32[3]", "--jsn"], "unknown option '--jsn' of 'tessera explain'", "did you mean '--json'?",
     "'tessera explain --help'"),
    (["convert", "--form=f32[3]", "a", "b"], "unknown option '--form' of 'tessera convert'",
     "did you mean '--from'?", "'tessera convert --help'"),
    (["explain", "npu", "--dtyp", "f32"], "unknown option '--dtyp' of 'tessera explain npu'",
     "did you mean '--dtype'?", "'tessera explain npu --help'"),
])
def test_a_typo_gets_the_nearest_name_and_help(tessera, args, wrong, nearest, where):
    error = tessera.fails(*args)
    assert error.count("\n") == 1, error
    assert wrong in error and nearest in error and where in error, error


def test_nothing_close_gets_no_guess_but_still_help(tessera):
    error = tessera.fails("xyzzy")
    assert "unknown command 'xyzzy'" in error and "did you mean" not in error
    assert "'tessera --help' lists the commands" in error
    error = tessera.fails("info", "--completely-different", "f32[3]")
    assert "unknown option '--completely-different'" in error and "did you mean" not in error


def test_values_are_not_taken_for_options(tessera, tmp_path):
    # A negative value after an option that takes one is a value, not an unknown option: the error
    # is about what is actually wrong (here, the missing input file).
    error = tessera.fails("convert", "--fill", "-inf", "--from", "f32[3]", "--to", "f32[3]",
                          str(tmp_path / "missing.bin"), str(tmp_path / "out.bin"))
    assert "unknown option" not in error, error


def test_an_undecodable_word_is_printed_escaped(tessera):
    error = tessera.fails("inf\x01o")
    assert "\x01" not in error and "unknown command" in error
