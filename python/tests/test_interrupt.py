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


def _run_long(code):
    script = "import dpcert\n" + code + "\n" + (
        # a fixed fine grid keeps the call several seconds long (the automatic grid now answers
        # in under the bar's 1 s delay)
        "dpcert.dpsgd_epsilon(rate='0.01', sigma='0.8', steps=2**20 - 1, delta='1e-7', method='pld',"
        " grid='1/2048')\n"
    )
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=300)


def test_long_call_draws_a_progress_bar_and_it_can_be_turned_off():
    # without tqdm importable, the bar is one rewritten line on stderr: 20 squarings of 20
    block = "import sys; sys.modules['tqdm'] = None; sys.modules['tqdm.auto'] = None"
    p = _run_long(block)
    assert p.returncode == 0, p.stderr
    assert "/20 squarings" in p.stderr, p.stderr
    q = _run_long(block + "\ndpcert.set_progress(False)")
    assert q.returncode == 0, q.stderr
    assert "squarings" not in q.stderr, q.stderr
