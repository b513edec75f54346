"""dpcert.opacus against the real Opacus and torch (CPU): a tiny model trained for a few
epochs reports dpcert's certified ε — the same bracket as `dpcert dpsgd` for the same
(q, σ, T) —, checkpoints round-trip through torch.save / torch.load(weights_only=True),
histories stay compact, mixed schedules compose exactly, bad input raises ValueError before a
step is counted, and make_private_with_epsilon's σ is certified within 1 % of the minimum."""
import math
import warnings
from decimal import Decimal

import pytest

torch = pytest.importorskip("torch")
opacus = pytest.importorskip("opacus")

import dpcert  # noqa: E402
from dpcert.opacus import CertifiedAccountant, make_private_with_epsilon  # noqa: E402

DELTA = 1e-5


def _setup(n=64, batch=8, seed=0):
    torch.manual_seed(seed)
    x = torch.randn(n, 4)
    y = (x[:, 0] > 0).long()
    data = torch.utils.data.TensorDataset(x, y)
    loader = torch.utils.data.DataLoader(data, batch_size=batch)
    model = torch.nn.Linear(4, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    return model, optimizer, loader


def _train(model, optimizer, loader, epochs):
    loss_fn = torch.nn.CrossEntropyLoss()
    for _ in range(epochs):
        for xb, yb in loader:
            optimizer.zero_grad()
            if len(xb):
                loss_fn(model(xb), yb).backward()
            optimizer.step()


def _cli_upper(cli, rate, sigma, steps):
    code, out, err = cli(["dpsgd", "--rate", rate, "--sigma", sigma, "--steps", str(steps),
                          "--delta", "1e-5"])
    assert code == 0, err
    return out["result"]["value"]


def test_training_with_the_certified_accountant_reports_the_cli_epsilon(cli):
    model, optimizer, loader = _setup()
    engine = opacus.PrivacyEngine()
    engine.accountant = CertifiedAccountant()  # the one-line swap, before make_private
    model, optimizer, loader = engine.make_private(
        module=model, optimizer=optimizer, data_loader=loader, noise_multiplier=1.1,
        max_grad_norm=1.0)
    _train(model, optimizer, loader, epochs=3)
    acc = engine.accountant
    assert len(acc) == 3 * 8 and acc.history == [("1.1", "0.125", 24)]
    eps = engine.get_epsilon(DELTA)
    q = _cli_upper(cli, "0.125", "1.1", 24)
    assert eps == q["upper_f64"]  # the certified upper end, as a float rounded up
    b = acc.get_epsilon(DELTA, bracket=True)
    assert (b.lower_text, b.upper_text) == (q["lower"], q["upper"])
    assert Decimal(eps) >= b.upper and b.two_sided
    # Opacus's RDP accountant is a sound upper bound: it is never below the certified lower end
    rdp = opacus.accountants.RDPAccountant()
    rdp.history = [(1.1, 0.125, 24)]
    assert rdp.get_epsilon(DELTA) >= b.lower


def test_registered_name_is_a_one_line_swap_too():
    engine = opacus.PrivacyEngine(accountant="dpcert")
    assert isinstance(engine.accountant, CertifiedAccountant)
    assert CertifiedAccountant.mechanism() == "dpcert"


def test_checkpoint_round_trip(tmp_path):
    acc = CertifiedAccountant()
    for _ in range(30):
        acc.step(noise_multiplier=1.1, sample_rate=0.01)
    for _ in range(10):
        acc.step(noise_multiplier=0.9, sample_rate=0.02)
    path = tmp_path / "acc.pt"
    torch.save(acc.state_dict(), path)
    state = torch.load(path, weights_only=True)
    other = CertifiedAccountant()
    other.load_state_dict(state)
    assert other.history == acc.history and len(other) == 40
    assert other.get_epsilon(DELTA) == acc.get_epsilon(DELTA)
    # counting goes on where it stopped
    other.step(noise_multiplier=0.9, sample_rate=0.02)
    assert other.history[-1] == ("0.9", "0.02", 11)
    # the engine's own checkpoint carries it as well
    model, optimizer, loader = _setup()
    engine = opacus.PrivacyEngine()
    engine.accountant = acc
    model, optimizer, loader = engine.make_private(
        module=model, optimizer=optimizer, data_loader=loader, noise_multiplier=1.1,
        max_grad_norm=1.0)
    engine.save_checkpoint(path=tmp_path / "ckpt.pt", module=model, optimizer=optimizer)
    fresh = opacus.PrivacyEngine()
    fresh.accountant = CertifiedAccountant()
    fresh.load_checkpoint(path=tmp_path / "ckpt.pt", module=model, optimizer=optimizer)
    assert fresh.accountant.history == acc.history
    # a checkpoint of another mechanism, or a corrupt history, is refused whole
    with pytest.raises(ValueError):
        CertifiedAccountant().load_state_dict({"history": [], "mechanism": "rdp"})
    bad = CertifiedAccountant()
    with pytest.raises(ValueError, match="sample_rate"):
        bad.load_state_dict({"history": [("1.1", "2", 5)], "mechanism": "dpcert"})


def test_mnist_history_is_one_entry(cli):
    # 14 063 equal steps are one run-length entry (so a step costs O(1), whatever the run's
    # length; no timing here: speed is the benchmarks' business)
    acc = CertifiedAccountant()
    for _ in range(14063):
        acc.step(noise_multiplier=1.1, sample_rate=256 / 60000)
    assert acc.history == [("1.1", "0.004266666666666667", 14063)]
    q = _cli_upper(cli, "0.004266666666666667", "1.1", 14063)
    assert acc.get_epsilon(DELTA) == q["upper_f64"]


def test_mixed_schedule_is_composed_exactly(cli):
    acc = CertifiedAccountant()
    plan = [(1.1, 0.01, 100), (0.9, 0.02, 50), (1.1, 0.01, 100)]
    for sigma, rate, steps in plan:
        for _ in range(steps):
            acc.step(noise_multiplier=sigma, sample_rate=rate)
    assert len(acc.history) == 3 and len(acc) == 250
    code, out, err = cli(["dpsgd", "--phase", "0.01,1.1,100", "--phase", "0.02,0.9,50",
                          "--phase", "0.01,1.1,100", "--delta", "1e-5"])
    assert code == 0, err
    b = acc.get_epsilon(DELTA, bracket=True)
    assert (b.lower_text, b.upper_text) == (out["result"]["value"]["lower"], out["result"]["value"]["upper"])
    # more steps never mean less privacy loss: the schedule lies above its first phase alone
    first = dpcert.dpsgd_epsilon(rate="0.01", sigma="1.1", steps=100, delta="1e-5")
    assert b.lower > first.upper


@pytest.mark.parametrize("sigma,rate,name", [
    (-1.0, 0.1, "noise_multiplier"), (0.0, 0.1, "noise_multiplier"),
    (float("nan"), 0.1, "noise_multiplier"), (math.inf, 0.1, "noise_multiplier"),
    (1.0, 1.5, "sample_rate"), (1.0, 0.0, "sample_rate"), (1.0, float("nan"), "sample_rate"),
    (1.0, None, "sample_rate"),
])
def test_bad_input_raises_before_a_step_is_counted(sigma, rate, name):
    acc = CertifiedAccountant()
    acc.step(noise_multiplier=1.0, sample_rate=0.1)
    with pytest.raises(ValueError, match=name):
        acc.step(noise_multiplier=sigma, sample_rate=rate)
    assert acc.history == [("1.0", "0.1", 1)] and len(acc) == 1


def test_a_bad_rate_from_the_engine_hook_raises_before_the_update():
    model, optimizer, loader = _setup()
    engine = opacus.PrivacyEngine()
    engine.accountant = CertifiedAccountant()
    model, optimizer, loader = engine.make_private(
        module=model, optimizer=optimizer, data_loader=loader, noise_multiplier=1.0,
        max_grad_norm=1.0)
    # a hook built for a rate above 1 (e.g. a mis-sized loader): the step raises, and neither
    # the accountant nor the weights move
    optimizer.attach_step_hook(engine.accountant.get_optimizer_hook_fn(sample_rate=1.5))
    before = [p.detach().clone() for p in model.parameters()]
    xb, yb = next(iter(loader))
    while not len(xb):
        xb, yb = next(iter(loader))
    torch.nn.CrossEntropyLoss()(model(xb), yb).backward()
    with pytest.raises(ValueError, match="sample_rate"):
        optimizer.step()
    assert len(engine.accountant) == 0
    assert all(torch.equal(a, b) for a, b in zip(before, model.parameters()))


def test_make_private_with_epsilon_uses_the_certified_calibration():
    model, optimizer, loader = _setup()
    engine = opacus.PrivacyEngine()
    model, optimizer, loader = make_private_with_epsilon(
        engine, module=model, optimizer=optimizer, data_loader=loader, target_epsilon=2.0,
        target_delta=DELTA, epochs=3, max_grad_norm=1.0)
    assert isinstance(engine.accountant, CertifiedAccountant)
    sigma = optimizer.noise_multiplier
    cal = engine.dpcert_calibration
    assert Decimal(sigma) >= Decimal(cal.value)
    run = dict(rate="0.125", steps=24, delta="1e-5")
    # certified feasible at σ, certified infeasible 1 % below it: within 1 % of the minimum
    assert dpcert.dpsgd_epsilon(sigma=repr(sigma), **run).upper <= 2
    assert dpcert.dpsgd_epsilon(sigma=repr(sigma * 0.99), **run).lower > 2
    _train(model, optimizer, loader, epochs=3)
    assert len(engine.accountant) == 24
    assert engine.get_epsilon(DELTA) <= 2.0


def test_make_private_with_epsilon_refuses_bad_targets_before_wrapping():
    model, optimizer, loader = _setup()
    engine = opacus.PrivacyEngine()
    for kwargs, name in [(dict(target_epsilon=-1.0, target_delta=DELTA, epochs=3), "epsilon"),
                         (dict(target_epsilon=1.0, target_delta=2.0, epochs=3), "delta"),
                         (dict(target_epsilon=1.0, target_delta=DELTA, epochs=0), "epochs")]:
        with pytest.raises(ValueError, match=name):
            make_private_with_epsilon(engine, module=model, optimizer=optimizer,
                                      data_loader=loader, max_grad_norm=1.0, **kwargs)
    assert len(engine.accountant) == 0


def test_opacus_own_noise_search_runs_on_the_certified_accountant():
    # PrivacyEngine(accountant="dpcert").make_private_with_epsilon: Opacus's float bisection
    # assigns float histories directly; they are read as their shortest decimals
    model, optimizer, loader = _setup()
    engine = opacus.PrivacyEngine(accountant="dpcert")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Opacus's own notices (secure RNG)
        model, optimizer, loader = engine.make_private_with_epsilon(
            module=model, optimizer=optimizer, data_loader=loader, target_epsilon=2.0,
            target_delta=DELTA, epochs=3, max_grad_norm=1.0)
    run = dict(rate="0.125", steps=24, delta="1e-5")
    assert dpcert.dpsgd_epsilon(sigma=repr(optimizer.noise_multiplier), **run).upper <= 2
