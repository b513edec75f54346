//! A query as data: the command structs clap fills from flags are also read by serde from a
//! JSON object (`{"command": "gaussian", "subcommand": "delta", "sigma": "1", "epsilon":
//! "0.5"}`), so a binding asks the same typed question the command line does, without an
//! argument vector. The object's keys are the long flag names with underscores, its values the
//! flags' exact texts (strings; `true`/`false` for switches; lists for repeatable flags); an
//! absent key takes the flag's default, which clap and serde read from one constant here.
//!
//! The clap command tree is the schema: [`check`] walks it to name the key of any unknown,
//! missing or mistyped entry before serde reads the object (serde's own messages cannot name
//! a mistyped key inside a tagged enum).
use super::{Argv, Request};
use crate::Error;
use clap::{ArgAction, CommandFactory};
use serde::Deserialize;
use serde_json::{Map, Value};

/// Each default once: clap reads the constant (`default_value = request::ONE`), serde the
/// function of the same value (`default = "request::one"`).
macro_rules! defaults {
    ($($konst:ident $fun:ident = $text:literal;)*) => {
        $(
            pub(super) const $konst: &str = $text;
            pub(super) fn $fun() -> String {
                $konst.to_string()
            }
        )*
    };
}

defaults! {
    ONE one = "1";
    DIGITS digits = "8";
    BEST best = "best";
    PLD pld = "pld";
    POISSON poisson = "poisson";
    ADD_REMOVE add_remove = "add-remove";
    USERS users = "users";
}

/// A request always asks for the envelope (`--json`).
pub(super) fn yes() -> bool {
    true
}

/// The commands a request may name: the single-value queries, `subsample` and `calibrate`
/// (the variants of [`Request`]; a test keeps the two in step).
const COMMANDS: [&str; 9] = [
    "gaussian",
    "subsample",
    "zcdp",
    "compose",
    "rdp",
    "dpsgd",
    "tradeoff",
    "gdp",
    "calibrate",
];

/// Flags of the command line's output, not of the question: not keys of a request.
const OUTPUT_FLAGS: [&str; 4] = ["json", "digits", "plot", "help"];

/// The request's key for a flag (`--batch-size` → `batch_size`).
pub(super) fn key(flag: &str) -> String {
    flag.trim_start_matches("--").replace('-', "_")
}

/// An error of a request: a flag's name becomes the key that carries it (`--delta-each` →
/// `delta_each`).
pub(super) fn keyed(e: Error) -> Error {
    match e {
        Error::InvalidArgument { name, reason } if name.starts_with("--") => {
            Error::InvalidArgument {
                name: key(&name),
                reason,
            }
        }
        other => other,
    }
}

/// The command a request names, read as serde reads it: its `command` (and `subcommand`,
/// where the command has them) checked against the command line's tree first, every other
/// key against that command's flags.
pub(super) fn parse(request: &Value) -> Result<Request, Error> {
    let obj = request.as_object().ok_or_else(|| {
        Error::arg(
            "request",
            "must be a JSON object: {\"command\": ..., the flags' long names with underscores: their texts}",
        )
    })?;
    let (words, cmd) = command(obj)?;
    check(&words, &cmd, obj)?;
    Request::deserialize(request).map_err(|e| serde_error(&e))
}

/// The clap command `command`/`subcommand` name, with its words (`gaussian delta`).
fn command(obj: &Map<String, Value>) -> Result<(String, clap::Command), Error> {
    let mut cmd = Argv::command();
    let mut words = Vec::new();
    for tag in ["command", "subcommand"] {
        let names: Vec<String> = cmd
            .get_subcommands()
            .map(|s| s.get_name().to_string())
            .filter(|n| n != "help" && (tag == "subcommand" || COMMANDS.contains(&n.as_str())))
            .collect();
        if names.is_empty() {
            break;
        }
        let expected = format!("one of {}", names.join(", "));
        let name = match obj.get(tag) {
            Some(Value::String(s)) => s,
            Some(other) => {
                return Err(Error::arg(tag, format!("expected {expected}, got {other}")))
            }
            None => return Err(Error::arg(tag, format!("is missing: {expected}"))),
        };
        let sub = cmd.find_subcommand(name).filter(|_| names.contains(name));
        cmd = sub
            .cloned()
            .ok_or_else(|| Error::arg(tag, format!("`{name}` is not {expected}")))?;
        words.push(name.clone());
    }
    Ok((words.join(" "), cmd))
}

/// Every key a flag of `cmd`, of the JSON type its flag takes; every required flag given.
fn check(words: &str, cmd: &clap::Command, obj: &Map<String, Value>) -> Result<(), Error> {
    let args: Vec<(Vec<String>, &clap::Arg)> = cmd
        .get_arguments()
        .filter_map(|a| {
            let mut names = vec![key(a.get_long()?)];
            names.extend(a.get_all_aliases().unwrap_or_default().into_iter().map(key));
            Some((names, a)).filter(|(n, _)| !OUTPUT_FLAGS.contains(&n[0].as_str()))
        })
        .collect();
    for (k, v) in obj {
        if k == "command" || (k == "subcommand" && words.contains(' ')) {
            continue;
        }
        let Some((_, arg)) = args.iter().find(|(names, _)| names.contains(k)) else {
            let keys: Vec<&str> = args.iter().map(|(n, _)| n[0].as_str()).collect();
            return Err(Error::arg(
                k,
                format!("is not a key of `{words}` (its keys: {})", keys.join(", ")),
            ));
        };
        let fits = match (arg.get_action(), v) {
            (ArgAction::SetTrue, Value::Bool(_)) => true,
            (ArgAction::Append, Value::Array(a)) => a.iter().all(Value::is_string),
            (ArgAction::Set, Value::String(_)) => true,
            (ArgAction::Set, Value::Null) => !arg.is_required_set(),
            _ => false,
        };
        if !fits {
            let want = match arg.get_action() {
                ArgAction::SetTrue => "true or false",
                ArgAction::Append => "a list of strings (one text per flag)",
                _ => "a string: the flag's exact text, e.g. \"0.1\" or \"1/3\"",
            };
            return Err(Error::arg(k, format!("expected {want}, got {v}")));
        }
    }
    for (names, arg) in &args {
        if arg.is_required_set() && !names.iter().any(|n| obj.contains_key(n)) {
            return Err(Error::arg(
                &names[0],
                format!("is missing (`{words}` needs it)"),
            ));
        }
    }
    Ok(())
}

/// The request for a command line (`args` without the program name): the same question as
/// data. clap reads the arguments, and every flag given on the line becomes its key (its
/// text; `true` for a switch; a list for a repeatable flag). `Err` names `query` when the
/// line is not one clap accepts.
pub(super) fn from_args(args: &[String]) -> Result<Value, Error> {
    let argv = std::iter::once("dpcert".to_string()).chain(args.iter().cloned());
    let mut cmd = Argv::command();
    let mut m = cmd
        .try_get_matches_from_mut(argv)
        .map_err(|e| Error::arg("query", super::one_line(&e)))?;
    let mut obj = Map::new();
    for tag in ["command", "subcommand"] {
        let Some((name, sub)) = m.remove_subcommand() else {
            break;
        };
        obj.insert(tag.into(), Value::String(name.clone()));
        cmd = cmd
            .find_subcommand(&name)
            .cloned()
            .ok_or_else(|| Error::arg(tag, format!("`{name}` is not a command")))?;
        m = sub;
    }
    for arg in cmd.get_arguments() {
        let (Some(long), id) = (arg.get_long(), arg.get_id().as_str()) else {
            continue;
        };
        let k = key(long);
        if OUTPUT_FLAGS.contains(&k.as_str())
            || m.value_source(id) != Some(clap::parser::ValueSource::CommandLine)
        {
            continue;
        }
        let texts: Vec<Value> = m
            .get_raw(id)
            .into_iter()
            .flatten()
            .map(|t| Value::String(t.to_string_lossy().into_owned()))
            .collect();
        let v = match arg.get_action() {
            ArgAction::SetTrue => Value::Bool(m.get_flag(id)),
            ArgAction::Append => Value::Array(texts),
            _ => texts.into_iter().next().unwrap_or(Value::Null),
        };
        obj.insert(k, v);
    }
    Ok(Value::Object(obj))
}

/// serde's message, under the key it names (``unknown field `x` `` → `x`).
fn serde_error(e: &serde_json::Error) -> Error {
    let text = e.to_string();
    let name = text
        .split('`')
        .nth(1)
        .filter(|_| text.contains("field"))
        .unwrap_or("request");
    Error::arg(name, text.clone())
}

#[cfg(test)]
mod tests {
    //! The serde form and the command line fill the same structs: every field's serde default
    //! is clap's, every key is its flag's long name with underscores.
    use super::*;
    use clap::Parser;

    /// Every single-value query command and every `calibrate` command, by its words.
    fn leaves() -> Vec<(Vec<String>, clap::Command)> {
        let mut out = Vec::new();
        for c in Argv::command().get_subcommands() {
            let subs: Vec<&clap::Command> = c
                .get_subcommands()
                .filter(|s| s.get_name() != "help")
                .collect();
            if subs.is_empty() {
                out.push((vec![c.get_name().to_string()], c.clone()));
            }
            for s in subs {
                let words = vec![c.get_name().to_string(), s.get_name().to_string()];
                out.push((words, s.clone()));
            }
        }
        // the commands a request can name (the others' variants are not deserialised)
        out.retain(|(w, _)| {
            !matches!(Request::deserialize(&request(w, &[])), Err(e) if e.to_string().contains("unknown variant"))
        });
        out
    }

    fn request(words: &[String], pairs: &[(String, Value)]) -> Value {
        let mut v = serde_json::json!({"command": words[0]});
        if let Some(s) = words.get(1) {
            v["subcommand"] = Value::String(s.clone());
        }
        for (k, x) in pairs {
            v[k] = x.clone();
        }
        v
    }

    /// `dpcert WORDS FLAGS --json` through clap, and the request through serde, as Debug text.
    fn both(words: &[String], flags: &[(String, Value)]) -> (String, String) {
        let mut argv = vec!["dpcert".to_string()];
        argv.extend(words.iter().cloned());
        for (k, v) in flags {
            let flag = format!("--{}", k.replace('_', "-"));
            match v {
                Value::Bool(true) => argv.push(flag),
                Value::Array(a) => a.iter().for_each(|x| {
                    argv.extend([flag.clone(), x.as_str().unwrap_or_default().to_string()])
                }),
                Value::String(s) => argv.extend([flag, s.clone()]),
                _ => {}
            }
        }
        argv.push("--json".into());
        let clap = Argv::try_parse_from(&argv).map(|c| c.request);
        let serde = parse(&request(words, flags));
        let show = |c: &Request| match c {
            Request::Gaussian(x) => format!("{x:?}"),
            Request::Zcdp(x) => format!("{x:?}"),
            Request::Compose(x) => format!("{x:?}"),
            Request::Rdp(x) => format!("{x:?}"),
            Request::Dpsgd(x) => format!("{x:?}"),
            Request::Calibrate(x) => format!("{x:?}"),
            Request::Tradeoff(x) => format!("{x:?}"),
            Request::Gdp(x) => format!("{x:?}"),
            Request::Subsample(x) => format!("{x:?}"),
        };
        (
            clap.map(|c| show(&c)).unwrap_or_else(|e| e.to_string()),
            serde.map(|c| show(&c)).unwrap_or_else(|e| e.to_string()),
        )
    }

    /// The flags of a command a request may carry: (key, required, action).
    fn flags(cmd: &clap::Command) -> Vec<(String, bool, ArgAction)> {
        cmd.get_arguments()
            .filter_map(|a| {
                Some((
                    key(a.get_long()?),
                    a.is_required_set(),
                    a.get_action().clone(),
                ))
            })
            .filter(|(k, ..)| !OUTPUT_FLAGS.contains(&k.as_str()))
            .collect()
    }

    fn text(action: &ArgAction, t: &str) -> Value {
        match action {
            ArgAction::SetTrue => Value::Bool(true),
            ArgAction::Append => serde_json::json!([t]),
            _ => Value::String(t.into()),
        }
    }

    #[test]
    fn defaults_agree_with_clap() {
        let leaves = leaves();
        let mut named: Vec<&str> = leaves.iter().map(|(w, _)| w[0].as_str()).collect();
        named.sort_unstable();
        named.dedup();
        let mut listed = COMMANDS.to_vec();
        listed.sort_unstable();
        assert_eq!(named, listed);
        assert!(leaves.len() >= 15, "{}", leaves.len());
        for (words, cmd) in leaves {
            // the required flags only (dpsgd: --delta, required unless --epsilon)
            let mut given: Vec<(String, Value)> = flags(&cmd)
                .into_iter()
                .filter(|(k, req, _)| *req || (words == ["dpsgd"] && k == "delta"))
                .map(|(k, _, a)| (k, text(&a, "7")))
                .collect();
            let (clap, serde) = both(&words, &given);
            assert!(!clap.contains("error"), "{words:?}: {clap}");
            assert_eq!(clap, serde, "{words:?}");
            // every flag given, each with its own text: the keys name the same fields
            given = flags(&cmd)
                .into_iter()
                .filter(|(k, ..)| !(words == ["dpsgd"] && k == "epsilon"))
                .enumerate()
                .map(|(i, (k, _, a))| (k, text(&a, &format!("{}", i + 2))))
                .collect();
            let (clap, serde) = both(&words, &given);
            assert!(!clap.contains("error"), "{words:?}: {clap}");
            assert_eq!(clap, serde, "{words:?}");
        }
    }
}
