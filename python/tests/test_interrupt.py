"""Long calls release the GIL and Ctrl-C (SIGINT) interrupts them."""
import signal
import subprocess
import sys
import threading
import time

import dpcert

SLOW = [{"query": ["dpsgd", "--rate", "0.01", "--sigma", "0.8", "--steps", "3000",
                   "--delta", "1e-7"], "value": "1.5"}]


def test_ctrl_c_interrupts_a_long_call():
    script = (
        "import dpcert\n"
        "print('started', flush=True)\n"
        f"dpcert.check({SLOW!r} * 400)\n"
        "print('finished', flush=True)\n"
    )
    # the child gets the default SIGINT disposition even where this process inherited SIG_IGN
    # (a runner that starts the suite as a background job of a non-interactive shell): Python
    # then installs its KeyboardInterrupt handler, as in an interactive session
    p = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert p.stdout.readline().strip() == "started"
    time.sleep(1.0)
    p.send_signal(signal.SIGINT)
    try:
        out, err = p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        raise AssertionError("SIGINT did not interrupt the call")
    assert "KeyboardInterrupt" in err
    assert "finished" not in out
    assert p.returncode != 0


def test_long_call_releases_the_gil():
    done = threading.Event()
    result = {}

    def work():
        result["r"] = dpcert.check(SLOW * 3)
        done.set()

    t = threading.Thread(target=work)
    t.start()
    ticks = 0
    while not done.is_set():
        ticks += 1  # runs only while the worker does not hold the GIL
        time.sleep(0.001)
    t.join()
    assert [r["verdict"] for r in result["r"]] == [result["r"][0]["verdict"]] * 3
    assert ticks > 20


def _long_script(code):
    return "import dpcert\n" + code + "\n" + (
        # a fixed fine grid keeps the call long enough (0.3–1 s) for several 50 ms polls to
        # see its squarings; the tests set the bar's delay to 0 so that whether a bar is drawn
        # does not depend on this machine's speed (the automatic grid answers in well under 1 s)
        "dpcert.dpsgd_epsilon(rate='0.01', sigma='0.8', steps=2**20 - 1, delta='1e-7', method='pld',"
        " grid='1/2048')\n"
    )


def _run_long(code):
    return subprocess.run([sys.executable, "-c", _long_script(code)], capture_output=True,
                          text=True, timeout=300)


NO_TQDM = "import sys; sys.modules['tqdm'] = None; sys.modules['tqdm.auto'] = None"
NO_DELAY = "dpcert.set_progress(None, delay=0)"


def test_progress_stays_out_of_pipes_unless_switched_on():
    # stderr is a pipe here (as in CI logs and `2> file`): no bar by default
    p = _run_long(NO_TQDM + "\n" + NO_DELAY)
    assert p.returncode == 0, p.stderr
    assert "squarings" not in p.stderr, p.stderr
    # switched on, the bar draws even into the pipe (one rewritten line without tqdm:
    # 20 squarings of 20) ...
    q = _run_long(NO_TQDM + "\n" + NO_DELAY + "\ndpcert.set_progress(True)")
    assert q.returncode == 0, q.stderr
    assert "/20 squarings" in q.stderr, q.stderr
    # ... and with tqdm, tqdm's bar
    t = _run_long(NO_DELAY + "\ndpcert.set_progress(True)")
    assert t.returncode == 0, t.stderr
    assert "dpcert" in t.stderr and "squaring" in t.stderr, t.stderr


def test_the_delay_keeps_short_calls_quiet():
    # forced on with the default 1 s delay, a call of ~20 ms (50× shorter) draws nothing
    script = (NO_TQDM + "\nimport dpcert\ndpcert.set_progress(True)\n"
              "dpcert.dpsgd_epsilon(rate='0.01', sigma='1', steps=1000, delta='1e-5', method='pld')\n")
    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert p.stderr == "", p.stderr


def test_set_progress_refuses_a_bad_delay():
    import pytest
    from dpcert import _progress
    for bad in (-1, float("nan"), float("inf"), "1", True):
        with pytest.raises(ValueError, match="invalid delay"):
            dpcert.set_progress(None, delay=bad)
    assert _progress.delay == 1.0 and _progress.enabled is None


def test_progress_draws_on_a_terminal_and_can_be_switched_off():
    import os
    import pty

    def on_a_terminal(code):
        # the child's stderr is a pseudo-terminal (what an interactive shell gives it)
        leader, follower = pty.openpty()
        p = subprocess.Popen([sys.executable, "-c", _long_script(code)],
                             stdout=subprocess.PIPE, stderr=follower, text=True)
        os.close(follower)
        seen = b""
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the child closed its end
                break
            if not chunk:
                break
            seen += chunk
        p.wait(timeout=300)
        os.close(leader)
        assert p.returncode == 0, seen
        return seen.decode(errors="replace")

    assert "/20 squarings" in on_a_terminal(NO_TQDM + "\n" + NO_DELAY)
    assert "squarings" not in on_a_terminal(NO_TQDM + "\n" + NO_DELAY + "\ndpcert.set_progress(False)")
