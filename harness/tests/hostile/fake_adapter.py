#!/usr/bin/env python3
"""A misbehaving implementation for rbv's hostile battery (stdlib only).

Usage: fake_adapter.py MODE [SECONDS]. Every mode handshakes like a
well-behaved adapter (except `exit-in-handshake`) and answers `project`
with `auto` for reversible-local-trusted, else `escalate`; then it misbehaves as MODE says:

  well-behaved        answers every request correctly
  hang                never answers a request after the handshake
  deaf                stops reading stdin after the handshake (and never answers)
  crash-mid-case      answers the first request, then dies on the second
  garbage             answers with a line that is not JSON
  wrong-id            answers with an id nobody asked for
  wrong-session       answers in another session
  unknown-type        answers with a type the protocol does not have
  huge-line           writes 100 MB without a newline, then waits
  stderr-flood        writes 50 MB to stderr, then answers correctly
  exit-in-handshake   exits before answering the handshake
  slow                sleeps SECONDS before every answer (after the handshake)
  bad-band            answers `project` with the band `Escalate` (wrong case)
  reverse             answers pipelined requests in reverse order
  traceback           prints a traceback to stderr, then answers like bad-band
  traceback-unsupported
                      prints a traceback to stderr, then answers `unsupported`
  one-life FILE       the first start behaves like crash-mid-case; every later
                      start (FILE exists by then) exits during the handshake
  stubborn DIR        ignores SIGINT, SIGTERM, SIGHUP and the end of stdin; on
                      its first request writes its pid to DIR/<pid>, then
                      never answers: only SIGKILL ends it
  duplicate           answers every request twice
  escape DIR          on its first request starts a child that leaves the
                      process group and session (setsid), ignores SIGTERM
                      and SIGHUP and writes its pid to DIR/<pid>; then
                      behaves well
  kill-launcher SIG DIR
                      on its first request writes its pid to DIR/<pid>, then
                      sends SIG (KILL, STOP or TERM) to its parent process
                      (the launcher or fork server it runs under); then
                      behaves well, but outlives the end of stdin and
                      SIGTERM: only SIGKILL ends it
  tty FILE            tries to open /dev/tty, writes to FILE what happened
                      (and a forged line to the terminal if it opened),
                      then behaves well
  evil-text           a hostile name, capabilities and a 125-deep profile (as deep as in
                      its handshake; answers every request `unsupported`
                      with escape sequences, bidi controls, XML-invalid
                      characters and forged lines in the message
  big-extra BYTES     behaves well, with an extra key of BYTES bytes in
                      every answer
  big-message BYTES   answers every request `unsupported` with a message of
                      BYTES bytes
  flood-after         answers its first request correctly, then writes
                      answers nobody asked for (ids of no request) without end
  duplicate-late      answers every request, then the same answer again
                      50 ms later
  early               answers every request, then at once the answer to the
                      request with the next id, which does not exist yet
  exit-after N        behaves well, but exits after its Nth answer (of its
                      life: a restart counts anew), before the next request
  scripted FILE       FILE is JSON: its "handshake" keys replace those of the
                      handshake answer, its "stderr" goes to stderr at the
                      start, and the Nth request after any handshake (N
                      counted across restarts in FILE.count) gets its
                      answers[N % len]: a body, given the request's id and
                      session unless it has its own, or a string: a raw
                      line, with {ID} and {SESSION} replaced
"""
import json
import select
import sys
import time

MODE = sys.argv[1]
DELAY = float(sys.argv[2]) if MODE == "slow" and len(sys.argv) > 2 else 0.0
SIZE = int(sys.argv[2]) if MODE in ("big-extra", "big-message", "exit-after") else 0
EVIL = ("\x1b[2J\x1b]8;;http://evil.example\x07click\x1b]8;;\x07 \u202egnp.exe\ufffe"
        "\nrbv: 999 passed, 0 failed, 0 skipped\n::warning::pwned"
        "\r\n  ::error::also @octocat https://evil.example/x [a](http://evil.example)")


def first_start(path):
    """True for exactly one start: the one that creates FILE."""
    import os
    try:
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        return True
    except FileExistsError:
        return False


def stubborn():
    """Becomes unkillable but by SIGKILL, says so in DIR/<pid> (written
    whole before it appears), and waits forever."""
    import os
    import signal
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)
    path = os.path.join(sys.argv[2], str(os.getpid()))
    with open(path + ".tmp", "w") as f:
        f.write(str(os.getpid()))
    os.rename(path + ".tmp", path)
    while True:
        time.sleep(3600)


if MODE == "one-life":
    MODE = "crash-mid-case" if first_start(sys.argv[2]) else "exit-in-handshake"
CAPABILITIES = ["manifest", "projection", "rule-of-two", "sql", "shell", "fetch",
                "tokens", "audit", "versioning", "critical-floor"]


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def answer(req):
    kind = req.get("type")
    base = {"id": req.get("id"), "session": req.get("session")}
    if kind == "handshake":
        base.update(type="handshake", protocol_version=1,
                    implementation={"name": "fake-" + MODE, "version": "0"},
                    capabilities=CAPABILITIES, profile={})
        if MODE == "evil-text":
            deep = "bottom"
            for _ in range(125):
                deep = {"k": deep}
            base.update(implementation={"name": "fake\ufffe\x1b[31m" + EVIL,
                                        "version": "0\uffff" + "v" * 100000},
                        capabilities=CAPABILITIES + ["x\u202e" * 1000],
                        profile={"deep": deep, "wide": "w" * 200000})
    elif kind == "project":
        axes = (req.get("reversibility"), req.get("scope"), req.get("trust"))
        band = "auto" if axes == ("reversible", "local", "trusted") else "escalate"
        base.update(type="projection", band=band)
    elif kind in ("record_event", "set_policy", "reset_session"):
        base.update(type="ack")
    else:
        base.update(type="unsupported", message="fake adapter")
    return base


def traceback():
    """What a crashing handler in an adapter prints before its fallback
    answer; the pause lets the harness's stderr reader take it first."""
    sys.stderr.write("Traceback: boom-7f3a\n")
    sys.stderr.flush()
    time.sleep(0.1)


def reverse_loop():
    """Collects requests until the input is quiet for 50 ms, then answers
    them newest first (raw reads: Python's line buffering would hide
    pipelined lines from select)."""
    import os
    buf = b""
    while True:
        if select.select([0], [], [], 0.05)[0]:
            chunk = os.read(0, 65536)
            if not chunk:
                return
            buf += chunk
            continue
        *lines, buf = buf.split(b"\n")
        for req in reversed([json.loads(l) for l in lines if l.strip()]):
            send(answer(req))


def escape(directory):
    """A grandchild in a session of its own, deaf to polite signals."""
    import os
    import signal
    child = os.fork()
    if child:
        # Answer only once the escapee is known, so that it is counted.
        for _ in range(500):
            if os.path.exists(os.path.join(directory, str(child))):
                return
            time.sleep(0.01)
        return
    if child == 0:
        os.setsid()
        for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            signal.signal(sig, signal.SIG_IGN)
        path = os.path.join(directory, str(os.getpid()))
        with open(path + ".tmp", "w") as f:
            f.write(str(os.getpid()))
        os.rename(path + ".tmp", path)
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        while True:
            time.sleep(3600)


def kill_launcher(name, directory):
    import os
    import signal
    path = os.path.join(directory, str(os.getpid()))
    with open(path + ".tmp", "w") as f:
        f.write(str(os.getpid()))
    os.rename(path + ".tmp", path)
    os.kill(os.getppid(), getattr(signal, "SIG" + name))


def tty(path):
    import os
    try:
        fd = os.open("/dev/tty", os.O_WRONLY)
        os.write(fd, b"\nrbv: 999 passed, 0 failed, 0 skipped (forged on /dev/tty)\n")
        os.close(fd)
        result = "opened"
    except OSError as e:
        result = "refused: %s" % e
    with open(path, "w") as f:
        f.write(result)


def scripted():
    import os
    with open(sys.argv[2]) as f:
        script = json.load(f)
    sys.stderr.write(script.get("stderr", ""))
    sys.stderr.flush()
    for line in sys.stdin:
        req = json.loads(line)
        if req.get("type") == "handshake":
            out = answer(req)
            out.update(script.get("handshake", {}))
            send(out)
            continue
        with open(sys.argv[2] + ".count", "a+") as f:
            served = f.tell()
            f.write(".")
        chosen = script["answers"][served % len(script["answers"])]
        if isinstance(chosen, str):
            sys.stdout.write(chosen.replace("{ID}", str(req["id"]))
                             .replace("{SESSION}", json.dumps(req["session"])[1:-1]) + "\n")
            sys.stdout.flush()
            continue
        out = {"id": req["id"], "session": req["session"]}
        out.update(chosen)
        send(out)


def main():
    if MODE == "scripted":
        return scripted()
    if MODE == "reverse":
        return reverse_loop()
    if MODE == "tty":
        tty(sys.argv[2])
    served = 0
    for line in sys.stdin:
        req = json.loads(line)
        if req.get("type") == "handshake":
            if MODE == "exit-in-handshake":
                sys.stderr.write("fake: giving up during the handshake\n")
                sys.exit(7)
            send(answer(req))
            if MODE == "deaf":
                time.sleep(3600)
            continue
        served += 1
        if MODE == "escape" and served == 1:
            escape(sys.argv[2])
        if MODE == "kill-launcher" and served == 1:
            kill_launcher(sys.argv[2], sys.argv[3])
        if MODE == "hang":
            time.sleep(3600)
        elif MODE == "stubborn":
            stubborn()
        elif MODE == "crash-mid-case" and served % 2 == 0:
            sys.stderr.write("fake: crashing on request %s\n" % req.get("id"))
            sys.stderr.flush()
            sys.exit(3)
        elif MODE == "garbage":
            sys.stdout.write("this is not json at all\n")
            sys.stdout.flush()
            continue
        elif MODE == "wrong-id":
            out = answer(req)
            out["id"] = req["id"] + 1000
            send(out)
            continue
        elif MODE == "wrong-session":
            out = answer(req)
            out["session"] = "someone-else"
            send(out)
            continue
        elif MODE == "unknown-type":
            send({"id": req["id"], "session": req["session"], "type": "banana"})
            continue
        elif MODE == "huge-line":
            chunk = "x" * (1 << 20)
            for _ in range(100):
                sys.stdout.write(chunk)
            sys.stdout.flush()
            time.sleep(3600)
        elif MODE == "stderr-flood":
            chunk = ("e" * 1023 + "\n") * 1024
            for _ in range(50):
                sys.stderr.write(chunk)
            sys.stderr.flush()
        elif MODE == "slow":
            time.sleep(DELAY)
        elif MODE == "duplicate":
            # Both in one write: they arrive together.
            line = json.dumps(answer(req)) + "\n"
            sys.stdout.write(line + line)
            sys.stdout.flush()
            continue
        elif MODE == "flood-after":
            send(answer(req))
            foreign = answer(req)
            n = 0
            while True:
                n += 1
                foreign["id"] = 1000000 + n
                send(foreign)
        elif MODE == "duplicate-late":
            send(answer(req))
            time.sleep(0.05)
            send(answer(req))
            continue
        elif MODE == "early":
            send(answer(req))
            ahead = answer(req)
            ahead["id"] = req["id"] + 1
            send(ahead)
            continue
        elif MODE == "big-extra":
            out = answer(req)
            out["padding"] = "p" * SIZE
            send(out)
            continue
        elif MODE in ("evil-text", "big-message"):
            message = EVIL if MODE == "evil-text" else "m" * SIZE
            send({"id": req["id"], "session": req["session"],
                  "type": "unsupported", "message": message})
            continue
        elif MODE == "traceback-unsupported":
            traceback()
            send({"id": req["id"], "session": req["session"],
                  "type": "unsupported", "message": "handler raised"})
            continue
        elif MODE in ("bad-band", "traceback"):
            if MODE == "traceback":
                traceback()
            out = answer(req)
            out["band"] = "Escalate"
            send(out)
            continue
        send(answer(req))
        if MODE == "exit-after" and served == SIZE:
            sys.exit(0)
    if MODE == "kill-launcher":
        stubborn_after_eof()


def stubborn_after_eof():
    import signal
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    try:
        main()
    except BrokenPipeError:
        pass
