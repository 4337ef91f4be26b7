T("Lexical errors", """
The lexer reports a bad character or token and goes on; the parser then sees the rest of the file.
""")
E("stray_char", "`stray 'C' in program`",
  "A character that starts no token: `#`, `$`, `?`, `\\`, `'` or a backquote. Comments are `//` and `/* */`, not `#`.",
  "tiny", wrong=[("    Out[tid] = A[tid];\n", "    # copy one element per thread\n    Out[tid] = A[tid];\n")],
  fix=[("    # copy", "    // copy")], fixtext="write comments with `//`.")
E("stray_byte", "`stray byte 0xNN in program`",
  "A byte outside printable ASCII (here the first byte of the UTF-8 `é`). Identifiers are ASCII only; the echoed source line shows such bytes as `?`.",
  "tiny", wrong=[("let tid", "let tidé")], fix=[("let tidé", "let tid")])
E("unterminated_comment", "`unterminated comment`",
  "A `/*` without its `*/`; comments do not nest.",
  "tiny", wrong=[("{\n", "{\n    /* one thread per element\n")],
  fix=[("    /* one thread per element\n", "    /* one thread per element */\n")])
E("unterminated_string", "`unterminated string`",
  "A string (an include path, a datapath letter or a rearrange pattern) must close on its own line.",
  "tiny", wrong=[("kernel k", 'include "common.tile;\nkernel k')],
  fix=[('include "common.tile;\n', '')], fixtext="close the string (here the include is simply removed, the file does not exist).")
E("unknown_escape", "`unknown escape '\\C' in string`",
  "Strings know only `\\\"` and `\\\\`.",
  "small", wrong=[("    view mine", '    view tv = t.rearrange("r c ->\\t c r");\n    view mine')], fix=[('->\\t c', '-> c')])
E("unknown_escape_byte", "`unknown escape '\\' followed by byte 0xNN in string`",
  "The same, when the byte after the backslash is not printable ASCII.",
  "small", wrong=[("    view mine", '    view tv = t.rearrange("r c ->\\é c r");\n    view mine')], fix=[('->\\é c', '-> c')])
E("int_too_large", "`integer literal 'N' does not fit in 32 bits`",
  "Integer literals are 32-bit ([reference.md section 1](reference.md#1-tokens)); the value is replaced by 0 and compilation goes on.",
  "tiny", wrong=[("kernel k", "const BIG = 4294967296;\nkernel k")], fix=[("4294967296", "4294967295u")],
  fixtext="use a value that fits (with `u` for values above 2^31 - 1).")
E("invalid_number", "`invalid number 'TEXT'`",
  "A digit followed by letters. Hex literals are `0x...`; the only suffix is `u`.",
  "tiny", wrong=[("let tid = thread_idx.x;", "let tid = thread_idx.x;\n    let mask = 0b1111;")],
  fix=[("0b1111", "0xf")])
