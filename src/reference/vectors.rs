//! `dpcert vectors`: certified test vectors for other implementations. Each query is the
//! argument list one would pass to `dpcert`; [`certified_vectors`] evaluates them all.
use super::judge::{QueryForm, QueryParser};
use crate::Result;
use serde_json::{json, Value};

/// Every vector: `{"query": [...], "command", "value": quantity, "theorem"}`. `progress(i, n)`
/// is called before vector `i` of `n`.
pub fn certified_vectors(
    parse: QueryParser,
    mut progress: impl FnMut(usize, usize),
) -> Result<Vec<Value>> {
    let queries = vector_queries();
    let mut recs = Vec::with_capacity(queries.len());
    for (i, q) in queries.iter().enumerate() {
        progress(i, queries.len());
        let (query, precision) = parse(QueryForm::Args(q))?;
        let a = query.evaluate(precision, false)?;
        recs.push(json!({
            "query": q,
            "command": query.command(),
            "value": crate::json::quantity(&a.value),
            "theorem": a.theorem,
        }));
    }
    Ok(recs)
}

/// The certified test vectors: every single-query kind, stressing tiny δ, large ε, many
/// compositions and the edges of validity.
pub fn vector_queries() -> Vec<Vec<String>> {
    let mut v: Vec<Vec<String>> = Vec::new();
    let mut push = |a: &[&str]| v.push(a.iter().map(|x| x.to_string()).collect());
    gaussian_vectors(&mut push);
    sigma_vectors(&mut push);
    zcdp_and_compose_vectors(&mut push);
    sgm_vectors(&mut push);
    fdp_vectors(&mut push);
    v
}

/// The Gaussian mechanism: δ(ε) and ε(δ), single and composed.
fn gaussian_vectors(push: &mut impl FnMut(&[&str])) {
    gaussian_delta_vectors(push);
    gaussian_epsilon_vectors(push);
}

/// The Gaussian mechanism's δ(ε): single, with a sensitivity, composed.
fn gaussian_delta_vectors(push: &mut impl FnMut(&[&str])) {
    for s in [
        "0.1", "0.5", "0.7", "1", "1.1", "2", "4", "10", "100", "1000",
    ] {
        for e in ["0", "0.01", "0.3", "1", "5", "50", "200"] {
            // keep δ ≳ 1e-400: tiny enough to stress f64 accountants, large enough to parse
            let (sf, ef) = (
                s.parse::<f64>().unwrap_or(1.0),
                e.parse::<f64>().unwrap_or(0.0),
            );
            let z = ef * sf - 0.5 / sf;
            if z <= 0.0 || z * z / 2.0 < 900.0 {
                push(&["gaussian", "delta", "--sigma", s, "--epsilon", e]);
            }
        }
    }
    for (s, sens, e) in [
        ("3", "2.5", "1"),
        ("0.25", "0.1", "0.5"),
        ("1/3", "1/7", "2"),
        ("12", "0.001", "1e-6"),
        ("0.05", "1", "500"),
    ] {
        push(&[
            "gaussian",
            "delta",
            "--sigma",
            s,
            "--epsilon",
            e,
            "--sensitivity",
            sens,
        ]);
    }
    for (s, k) in [
        ("1", "1000"),
        ("5", "10000"),
        ("20", "100000"),
        ("0.8", "14063"),
        ("3", "7/1"),
    ] {
        for e in ["0.5", "2", "8"] {
            push(&[
                "gaussian",
                "delta",
                "--sigma",
                s,
                "--epsilon",
                e,
                "--compositions",
                k,
            ]);
        }
    }
}

/// The Gaussian mechanism's ε(δ): single, and composed with a sensitivity.
fn gaussian_epsilon_vectors(push: &mut impl FnMut(&[&str])) {
    for s in ["0.3", "1", "4", "50", "256/60000"] {
        for d in ["0.5", "1e-5", "1e-10", "1e-50", "1e-300", "0.999999"] {
            push(&["gaussian", "epsilon", "--sigma", s, "--delta", d]);
        }
    }
    for (s, k, sens) in [
        ("2", "100", "1"),
        ("10", "10000", "1"),
        ("1", "3", "0.5"),
        ("7", "256", "2"),
    ] {
        for d in ["1e-6", "1e-15"] {
            push(&[
                "gaussian",
                "epsilon",
                "--sigma",
                s,
                "--delta",
                d,
                "--compositions",
                k,
                "--sensitivity",
                sens,
            ]);
        }
    }
}

/// The Gaussian ε at small σ over many compositions, and the smallest σ for (ε, δ).
fn sigma_vectors(push: &mut impl FnMut(&[&str])) {
    for s in ["0.6", "0.8", "1", "1.5", "3"] {
        for k in ["10", "1000"] {
            for d in ["1e-5", "1e-9"] {
                push(&[
                    "gaussian",
                    "epsilon",
                    "--sigma",
                    s,
                    "--delta",
                    d,
                    "--compositions",
                    k,
                ]);
            }
        }
    }
    for e in ["0.01", "0.1", "1", "4", "20"] {
        for d in ["0.1", "1e-5", "1e-12", "1e-100"] {
            push(&["gaussian", "sigma", "--epsilon", e, "--delta", d]);
        }
    }
    for (e, d, k) in [
        ("1", "1e-6", "1000"),
        ("8", "1e-5", "14063"),
        ("0.5", "1e-9", "50"),
    ] {
        push(&[
            "gaussian",
            "sigma",
            "--epsilon",
            e,
            "--delta",
            d,
            "--compositions",
            k,
        ]);
    }
}

/// zCDP conversions and compositions.
fn zcdp_and_compose_vectors(push: &mut impl FnMut(&[&str])) {
    for r in ["0.0001", "0.01", "0.5", "2", "30"] {
        for e in ["0", "0.1", "1", "10", "100"] {
            // keep δ above 1e-100000 so that every consumer can parse the vector
            if e.parse::<f64>().unwrap_or(0.0).powi(2) / (4.0 * r.parse::<f64>().unwrap_or(1.0))
                < 900.0
            {
                push(&["zcdp", "delta", "--rho", r, "--epsilon", e]);
            }
        }
        for d in ["0.5", "1e-5", "1e-15", "1e-300"] {
            push(&["zcdp", "epsilon", "--rho", r, "--delta", d]);
        }
    }
    for (e0, k) in [
        ("0.01", "1000"),
        ("0.1", "100"),
        ("1", "10"),
        ("0.001", "100000"),
        ("2", "3"),
        ("0.05", "5000"),
        ("0.5", "40"),
        ("0.2", "1"),
    ] {
        for d in ["1e-5", "1e-10"] {
            push(&[
                "compose",
                "approx",
                "--epsilon",
                e0,
                "--delta-each",
                "1e-17",
                "--count",
                k,
                "--delta",
                d,
            ]);
            push(&[
                "compose",
                "pure",
                "--epsilon",
                e0,
                "--count",
                k,
                "--delta",
                d,
            ]);
        }
    }
}

/// Rényi DP of the subsampled Gaussian and DP-SGD.
fn sgm_vectors(push: &mut impl FnMut(&[&str])) {
    for (q, sg, t) in [
        ("256/60000", "1.1", "14063"),
        ("0.01", "4", "10000"),
        ("256/60000", "0.7", "10547"),
        ("0.01", "2", "1500"),
    ] {
        for a in ["2", "8", "32.5", "256"] {
            push(&[
                "rdp",
                "subsampled-gaussian",
                "--rate",
                q,
                "--sigma",
                sg,
                "--steps",
                t,
                "--order",
                a,
            ]);
        }
        for d in ["1e-5", "1e-15"] {
            for m in ["rdp", "pld"] {
                push(&[
                    "dpsgd", "--rate", q, "--sigma", sg, "--steps", t, "--delta", d, "--method", m,
                ]);
            }
        }
    }
}

/// f-DP and GDP: the best attack's TPR at an FPR, and μ.
fn fdp_vectors(push: &mut impl FnMut(&[&str])) {
    // f-DP and GDP: the best attack's TPR at an FPR, and μ
    for (s, k) in [("1", "1"), ("4", "100"), ("1.1", "14063")] {
        push(&["gdp", "gaussian", "--sigma", s, "--compositions", k]);
        for a in ["1e-6", "0.01", "0.5"] {
            push(&[
                "tradeoff",
                "gaussian",
                "--sigma",
                s,
                "--compositions",
                k,
                "--fpr",
                a,
            ]);
        }
    }
    push(&[
        "tradeoff", "dpsgd", "--rate", "0.1", "--sigma", "1", "--steps", "10", "--fpr", "0.01",
    ]);
    // DP-SGD's μ* = √T/σ (no amplification by subsampling at finite T)
    for (r, s, t) in [
        ("256/60000", "1.1", "14063"),
        ("0.01", "4", "10000"),
        ("0.5", "1", "3"),
        ("1", "2", "16"),
    ] {
        push(&["gdp", "dpsgd", "--rate", r, "--sigma", s, "--steps", t]);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn at_least_200_distinct_queries() {
        let v = super::vector_queries();
        assert!(v.len() >= 200);
        let mut seen = std::collections::HashSet::new();
        assert!(
            v.iter().all(|q| seen.insert(q.join(" "))),
            "a vector appears twice"
        );
    }
}
