"""A bash command line, parsed into the simple commands it will run.

`shlex` splits words the POSIX way but cannot see what bash executes inside
a word (`$(…)`, backticks, `<(…)`, `${x:-$(…)}`), decodes no `$'\\x72m'`, and
knows no redirections or here-documents, so this is a small bash lexer of
our own. It keeps, for every word, whether its text is fixed (literal,
whatever the quoting) or only known at run time, and collects the text of
every nested command so that the classifier inspects it in turn.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field


class ParseError(Exception):
    """bash would refuse the line, or we cannot tell what it runs."""


@dataclass
class Word:
    text: str = ""          # the word after quote removal (fixed parts only)
    dynamic: bool = False   # some part is only known when it runs ($x, $(…), `…`)
    glob: bool = False      # an unquoted glob or brace expansion may change it
    quoted: bool = False    # some part was quoted

    def fixed(self) -> bool:
        return not self.dynamic and not self.glob


@dataclass
class Redirect:
    op: str                  # ">", ">>", "<", "<<", "<<<", "<>", ">&", "&>", "&>>", ">|"
    target: Word
    heredoc: str | None = None


@dataclass
class Simple:
    words: list[Word] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)
    piped_in: bool = False   # stdin comes from the previous command of a pipeline


@dataclass
class Script:
    commands: list[Simple] = field(default_factory=list)
    nested: list[str] = field(default_factory=list)  # command substitutions, process substitutions


_ANSI = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r",
         "t": "\t", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}
_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=")
_META = set("|&;<>()\n")
_BLANK = " \t"


def is_assignment(raw: str) -> bool:
    return bool(_ASSIGN.match(raw))


def _ansi_c(s: str, i: int) -> tuple[str, int]:
    """Decodes $'…' starting after the opening quote; returns (text, index after close)."""
    out: list[str] = []
    while i < len(s):
        c = s[i]
        if c == "'":
            return "".join(out), i + 1
        if c == "\\" and i + 1 < len(s):
            d = s[i + 1]
            if d in _ANSI:
                out.append(_ANSI[d])
                i += 2
            elif d in "xuU":
                width = {"x": 2, "u": 4, "U": 8}[d]
                m = re.match(r"[0-9A-Fa-f]{1,%d}" % width, s[i + 2:])
                if m:
                    out.append(chr(min(int(m.group(0), 16), 0x10FFFF)))
                    i += 2 + len(m.group(0))
                else:
                    out.append("\\" + d)
                    i += 2
            elif d in "01234567":
                m = re.match(r"[0-7]{1,3}", s[i + 1:])
                assert m
                out.append(chr(int(m.group(0), 8) & 0xFF))
                i += 1 + len(m.group(0))
            elif d == "c" and i + 2 < len(s):
                out.append(chr(ord(s[i + 2]) & 0x1F))
                i += 3
            else:
                out.append("\\" + d)
                i += 2
        else:
            out.append(c)
            i += 1
    raise ParseError("unterminated $'…'")


def _skip_single(s: str, i: int) -> int:
    j = s.find("'", i)
    if j < 0:
        raise ParseError("unterminated single quote")
    return j + 1


def _skip_double(s: str, i: int) -> int:
    """i is after the opening `"`; returns the index after the closing one."""
    while i < len(s):
        c = s[i]
        if c == "\\":
            i += 2
        elif c == '"':
            return i + 1
        elif c == "`":
            i = _skip_backtick(s, i + 1)
        elif s.startswith("$(", i):
            i = _match_paren(s, i + 2)
        elif s.startswith("${", i):
            i = _match_brace(s, i + 2)
        else:
            i += 1
    raise ParseError("unterminated double quote")


def _skip_backtick(s: str, i: int) -> int:
    while i < len(s):
        if s[i] == "\\":
            i += 2
        elif s[i] == "`":
            return i + 1
        else:
            i += 1
    raise ParseError("unterminated backtick")


def _match_paren(s: str, i: int) -> int:
    """i is after an opening `(`; returns the index after its `)`. Knows
    what bash knows inside: quotes, comments and here-document bodies, in
    which a `)` closes nothing."""
    depth = 1
    heredocs: list[tuple[str, bool]] = []
    while i < len(s):
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c == "'":
            i = _skip_single(s, i + 1)
            continue
        if c == '"':
            i = _skip_double(s, i + 1)
            continue
        if c == "`":
            i = _skip_backtick(s, i + 1)
            continue
        if c == "#" and (i == 0 or s[i - 1] in " \t\n;|&("):
            j = s.find("\n", i)
            i = len(s) if j < 0 else j
            continue
        if s.startswith("<<", i) and not s.startswith("<<<", i):
            m = re.match(r"<<(-?)[ \t]*(?:'([^'\n]*)'|\"([^\"\n]*)\"|\\?([^\s;&|<>()]+))", s[i:])
            if m:
                delim = next(g for g in (m.group(2), m.group(3), m.group(4)) if g is not None)
                heredocs.append((delim, m.group(1) == "-"))
                i += m.end()
                continue
        if c == "\n" and heredocs:
            i += 1
            for delim, strip in heredocs:
                while i < len(s):
                    j = s.find("\n", i)
                    line = s[i:] if j < 0 else s[i:j]
                    i = len(s) if j < 0 else j + 1
                    if (line.lstrip("\t") if strip else line) == delim:
                        break
            heredocs = []
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise ParseError("unterminated $(…)")


def _match_brace(s: str, i: int) -> int:
    depth = 1
    while i < len(s):
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c == "'":
            i = _skip_single(s, i + 1)
            continue
        if c == '"':
            i = _skip_double(s, i + 1)
            continue
        if s.startswith("$(", i):
            i = _match_paren(s, i + 2)
            continue
        if c == "`":
            i = _skip_backtick(s, i + 1)
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise ParseError("unterminated ${…}")


class Lexer:
    def __init__(self, text: str) -> None:
        self.s = text
        self.i = 0
        self.nested: list[str] = []
        self.pending_heredocs: list[tuple[Redirect, str, bool, bool]] = []

    # --- words ---------------------------------------------------------

    def _dollar(self, w: Word, out: list[str], in_double: bool) -> None:
        s, i = self.s, self.i
        if s.startswith("$((", i):
            end = _match_paren(s, i + 2)
            inner = s[i + 3:end - 1]
            self._scan_nested(inner)
            w.dynamic = True
            out.append(s[i:end])
            self.i = end
        elif s.startswith("$(", i):
            end = _match_paren(s, i + 2)
            self.nested.append(s[i + 2:end - 1])
            w.dynamic = True
            out.append(s[i:end])
            self.i = end
        elif s.startswith("${", i):
            end = _match_brace(s, i + 2)
            self._scan_nested(s[i + 2:end - 1])
            w.dynamic = True
            out.append("$" + s[i + 2:end - 1].split(":")[0].strip("#!"))
            self.i = end
        elif s.startswith("$'", i) and not in_double:
            text, self.i = _ansi_c(s, i + 2)
            out.append(text)
            w.quoted = True
        elif s.startswith('$"', i) and not in_double:
            self.i = i + 1  # a locale string reads as a double-quoted one
        elif i + 1 < len(s) and (s[i + 1].isalnum() or s[i + 1] in "_@*#?$!-"):
            j = i + 2 if not (s[i + 1].isalpha() or s[i + 1] == "_") else i + 1
            while j < len(s) and (s[j].isalnum() or s[j] == "_") and (s[i + 1].isalpha() or s[i + 1] == "_"):
                j += 1
            w.dynamic = True
            out.append(s[i:j])
            self.i = j
        else:
            out.append("$")
            self.i = i + 1

    def _scan_nested(self, inner: str) -> None:
        """Collects commands run inside an expansion (`${x:-$(cmd)}`, `$(( $(cmd) ))`)."""
        i = 0
        while i < len(inner):
            if inner.startswith("$(", i):
                end = _match_paren(inner, i + 2)
                self.nested.append(inner[i + 2:end - 1])
                i = end
            elif inner[i] == "`":
                end = _skip_backtick(inner, i + 1)
                self.nested.append(_unescape_backtick(inner[i + 1:end - 1]))
                i = end
            elif inner[i] == "\\":
                i += 2
            else:
                i += 1

    def word(self) -> Word:
        s = self.s
        w = Word()
        out: list[str] = []
        start = self.i
        while self.i < len(s):
            c = s[self.i]
            if c == "(" and not w.quoted and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*\+?=", "".join(out)):
                end = _match_paren(s, self.i + 1)  # an array assignment: NAME=(…)
                self._scan_nested(s[self.i + 1:end - 1])
                out.append(s[self.i:end])
                self.i = end
                continue
            if c in _BLANK or c in _META:
                # `<(…)` and `>(…)` are words: process substitution.
                if c in "<>" and s.startswith("(", self.i + 1) and self.i == start:
                    end = _match_paren(s, self.i + 2)
                    self.nested.append(s[self.i + 2:end - 1])
                    w.dynamic = True
                    self.i = end
                    continue
                break
            if c == "\\":
                if self.i + 1 < len(s) and s[self.i + 1] == "\n":
                    self.i += 2
                    continue
                if self.i + 1 < len(s):
                    out.append(s[self.i + 1])
                w.quoted = True
                self.i += 2
            elif c == "'":
                end = _skip_single(s, self.i + 1)
                out.append(s[self.i + 1:end - 1])
                w.quoted = True
                self.i = end
            elif c == '"':
                self._double(w, out)
            elif c == "`":
                end = _skip_backtick(s, self.i + 1)
                self.nested.append(_unescape_backtick(s[self.i + 1:end - 1]))
                w.dynamic = True
                self.i = end
            elif c == "$":
                self._dollar(w, out, in_double=False)
            else:
                if c in "*?[" or (c == "{" and self._brace_expansion()):
                    w.glob = True
                out.append(c)
                self.i += 1
        w.text = "".join(out)
        return w

    def _brace_expansion(self) -> bool:
        m = re.match(r"\{[^\s{}]*(,|\.\.)[^\s{}]*\}", self.s[self.i:])
        return bool(m)

    def _double(self, w: Word, out: list[str]) -> None:
        s = self.s
        self.i += 1
        w.quoted = True
        while self.i < len(s):
            c = s[self.i]
            if c == '"':
                self.i += 1
                return
            if c == "\\" and self.i + 1 < len(s) and s[self.i + 1] in '$`"\\\n':
                if s[self.i + 1] != "\n":
                    out.append(s[self.i + 1])
                self.i += 2
            elif c == "`":
                end = _skip_backtick(s, self.i + 1)
                self.nested.append(_unescape_backtick(s[self.i + 1:end - 1]))
                w.dynamic = True
                self.i = end
            elif c == "$":
                self._dollar(w, out, in_double=True)
            else:
                out.append(c)
                self.i += 1
        raise ParseError("unterminated double quote")

    # --- here-documents ------------------------------------------------

    def read_heredocs(self) -> None:
        """At a newline: the bodies of the here-documents opened on this line."""
        for redirect, delim, strip_tabs, expand in self.pending_heredocs:
            lines: list[str] = []
            while True:
                if self.i >= len(self.s):
                    # bash warns and takes the rest of the input as the body.
                    break
                j = self.s.find("\n", self.i)
                line = self.s[self.i:] if j < 0 else self.s[self.i:j]
                self.i = len(self.s) if j < 0 else j + 1
                check = line.lstrip("\t") if strip_tabs else line
                if check == delim:
                    break
                lines.append(check)
            body = "\n".join(lines)
            if expand:
                self._scan_nested(body)
            redirect.heredoc = body
        self.pending_heredocs = []


def _unescape_backtick(inner: str) -> str:
    return re.sub(r"\\([$`\\])", r"\1", inner)


_REDIR = re.compile(r"(\d+|\{[A-Za-z_][A-Za-z0-9_]*\})?(&>>|&>|>>|>\||>&|<<<|<<-|<<|<>|<&|>|<)")


RESERVED_OPEN = {"if": "if", "while": "loop", "until": "loop", "for": "loop", "select": "loop", "{": "{"}


class _Structure:
    """bash's compound commands, far enough to refuse what bash refuses
    (`if then fi`, `done` without a loop) and to drop reserved words from
    the commands that run."""

    def __init__(self) -> None:
        self.stack: list[list[object]] = []  # [kind, commands seen since the opener or its last part]

    def strip(self, cmd: Simple) -> None:
        while cmd.words and cmd.words[0].fixed() and not cmd.words[0].quoted:
            w = cmd.words[0].text
            top = self.stack[-1] if self.stack else None
            if w in RESERVED_OPEN:
                self.stack.append([RESERVED_OPEN[w], 0])
                cmd.words.pop(0)
                if w in ("for", "select"):
                    cmd.words = []  # `for NAME in WORDS`: the words are data
                    return
            elif w in ("then", "elif", "else"):
                if top is None or top[0] != "if" or (w == "then" and top[1] == 0):
                    raise ParseError(f"`{w}` out of place")
                top[1] = 0 if w == "elif" else 1
                cmd.words.pop(0)
            elif w == "fi":
                if top is None or top[0] != "if" or top[1] == 0:
                    raise ParseError("`fi` out of place")
                self.stack.pop()
                cmd.words.pop(0)
            elif w == "do":
                if top is None or top[0] != "loop":
                    raise ParseError("`do` out of place")
                top[1] = 0
                cmd.words.pop(0)
            elif w == "done":
                if top is None or top[0] != "loop":
                    raise ParseError("`done` out of place")
                self.stack.pop()
                cmd.words.pop(0)
            elif w == "}":
                if top is None or top[0] != "{":
                    raise ParseError("`}` out of place")
                self.stack.pop()
                cmd.words.pop(0)
            elif w in ("!", "time"):
                cmd.words.pop(0)
            elif w in ("case", "esac", "function", "coproc"):
                raise ParseError(f"`{w}` is not inspected: fail safe")
            else:
                break
        if cmd.words and self.stack:
            self.stack[-1][1] = int(str(self.stack[-1][1])) + 1

    def close(self) -> None:
        if self.stack:
            raise ParseError(f"unclosed `{self.stack[-1][0]}`")


def parse(text: str) -> Script:
    """The simple commands of a bash line, in order, with nested commands."""
    lx = Lexer(text)
    script = Script()
    cur = Simple()
    s = lx.s
    structure = _Structure()
    parens = 0
    # The last operator needs a command after it (`ls |`, `a &&`).
    dangling: str | None = None

    # A `)` just closed a group: an operator may follow it (`(a); b`).
    group_closed = False

    def end_command(op: str | None) -> None:
        nonlocal cur, dangling, group_closed
        had_words = bool(cur.words)
        structure.strip(cur)
        if cur.words or cur.redirects:
            script.commands.append(cur)
        elif op is not None and not had_words and not group_closed:
            raise ParseError(f"`{op}` without a command before it")
        group_closed = False
        dangling = op
        cur = Simple(piped_in=op in ("|", "|&"))

    while lx.i < len(s):
        c = s[lx.i]
        if c in _BLANK:
            lx.i += 1
            continue
        if c == "\\" and s.startswith("\\\n", lx.i):
            lx.i += 2
            continue
        if c == "#" and (lx.i == 0 or s[lx.i - 1] in _BLANK or s[lx.i - 1] in _META):
            j = s.find("\n", lx.i)
            lx.i = len(s) if j < 0 else j
            continue
        if c == "\n":
            lx.i += 1
            lx.read_heredocs()
            if cur.words or cur.redirects:
                end_command(None)
            # Otherwise bash reads the next line as the rest of a pipeline or list.
            continue
        m = _REDIR.match(s, lx.i)
        if m and not (c in "<>" and s.startswith("(", lx.i + 1)):
            op = m.group(2)
            lx.i = m.end()
            while lx.i < len(s) and s[lx.i] in _BLANK:
                lx.i += 1
            if lx.i >= len(s) or s[lx.i] in _META:
                raise ParseError(f"redirection {op} without a target")
            target = lx.word()
            r = Redirect(op, target)
            if op in ("<<", "<<-"):
                lx.pending_heredocs.append((r, target.text, op == "<<-", not target.quoted))
            cur.redirects.append(r)
            continue
        if c in "|&;()":
            for op in ("||", "&&", "|&", ";;&", ";;", ";&", "|", "&", ";", "(", ")"):
                if s.startswith(op, lx.i):
                    lx.i += len(op)
                    if op in (";;", ";;&", ";&"):
                        raise ParseError("case clauses are not inspected: fail safe")
                    if op == "(":
                        if len(cur.words) == 1 and s[lx.i:].lstrip(_BLANK).startswith(")"):
                            # `name () { …; }`: a function definition, whose body
                            # is inspected as if it ran.
                            lx.i = s.index(")", lx.i) + 1
                            cur = Simple(piped_in=cur.piped_in)
                            break
                        if cur.words:
                            raise ParseError("`(` after a command")
                        parens += 1
                        dangling = "("
                        structure.stack.append(["(", 0])
                    elif op == ")":
                        parens -= 1
                        if parens < 0:
                            raise ParseError("`)` without `(`")
                        end_command(None)
                        if not structure.stack or structure.stack[-1][0] != "(":
                            raise ParseError("`)` closes nothing")
                        structure.stack.pop()
                        dangling = None
                        group_closed = True
                    else:
                        end_command(op)
                    break
            continue
        if c in "<>":
            w = lx.word()  # a process substitution
            cur.words.append(w)
            continue
        cur.words.append(lx.word())
    if lx.pending_heredocs:
        lx.read_heredocs()
    if not (cur.words or cur.redirects) and dangling in ("|", "|&", "||", "&&"):
        raise ParseError(f"`{dangling}` at the end of the line")
    end_command(None)
    structure.close()
    script.nested = lx.nested
    return script
