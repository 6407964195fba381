//! `cancel`: a held stop makes the long kernels skip their work and report
//! `Interrupted`; released, the same calls give the same bits as before.
//!
//! A stop is process-wide, so nothing else may run kernels while the test
//! holds one: the test re-runs this test binary in a child process with only
//! itself selected (`--exact`), and the child runs the body. (It was an
//! integration test of its own; a unit test saves the release build of the
//! library that every integration test links, about a minute of each CI run.)

use std::process::Command;
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use crate::cancel::{self, Stop, Watch};
use crate::finite::credit::Credit;
use crate::finite::curve::{state_curves, Family};
use crate::finite::expectation::histogram_values;
use crate::intake::histogram::Histogram;
use crate::metric::Metric;
use crate::posterior::credit_moments::{joint, posterior};
use crate::Error;

/// Set in the child process, which runs the body.
const CHILD: &str = "KSCORE_CANCEL_TEST_CHILD";
const NAME: &str = "cancel_test::held_stops_interrupt_and_released_ones_leave_no_trace";

fn bank() -> Histogram {
    let n = 64;
    let values: Vec<u64> = (0..=n).collect();
    let freqs = values.iter().map(|c| 1 + c % 3).collect();
    Histogram { n, values, freqs }
}

#[test]
fn held_stops_interrupt_and_released_ones_leave_no_trace() {
    if std::env::var_os(CHILD).is_some() {
        body();
        return;
    }
    let exe = std::env::current_exe().expect("the test binary's path");
    let out = Command::new(exe)
        .args([NAME, "--exact", "--test-threads=1", "--nocapture"])
        .env(CHILD, "1")
        .output()
        .expect("the test binary runs again");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "child failed:\n{stdout}\n{stderr}");
    // Exactly this test ran in the child (a renamed test would select none).
    assert!(stdout.contains("test result: ok. 1 passed"), "{stdout}");
}

fn body() {
    let hist = bank();
    let (mg, auc) = (Credit::mg(40), Credit::auc(300));
    let states: Vec<(u64, u64)> = hist.values.iter().map(|&c| (hist.n, c)).collect();
    let family = Family::new(Metric::Majority, 0.0).unwrap();
    let ks: Vec<u64> = (1..=64).collect();
    let run = || {
        (
            posterior(&hist, &auc, 1.0, 1.0).map(|m| (m.mean.to_bits(), m.var.to_bits())),
            joint(&hist, &mg, &auc, 1.0, 1.0).map(|j| j.cov.to_bits()),
            histogram_values(&hist, &mg)
                .iter()
                .map(|v| v.to_bits())
                .collect::<Vec<_>>(),
            state_curves(&states, family, &ks)
                .iter()
                .map(|v| v.to_bits())
                .collect::<Vec<_>>(),
        )
    };
    assert!(!cancel::stopping());
    let before = run();
    assert!(before.0.is_ok() && before.1.is_ok());
    let watch = Watch::new();
    {
        let _stop = Stop::new();
        assert!(cancel::stopping());
        assert_eq!(cancel::check(), Err(Error::Interrupted));
        let (p, j, values, curves) = run();
        assert_eq!(p, Err(Error::Interrupted));
        assert_eq!(j, Err(Error::Interrupted));
        assert!(values.iter().all(|&v| f64::from_bits(v).is_nan()), "values skipped");
        assert!(curves.iter().all(|&v| f64::from_bits(v).is_nan()), "curves skipped");
        assert!(watch.interrupted());
    }
    assert!(!cancel::stopping());
    assert!(watch.interrupted(), "a stop that came and went is still seen");
    assert!(!Watch::new().interrupted());
    assert_eq!(run(), before, "same bits after the stop is released");

    // A stop taken while a long kernel runs on another thread ends it early.
    let big = Credit::auc(4000);
    let (tx, rx) = mpsc::channel();
    let worker = thread::spawn(move || {
        let hist = bank();
        let out = posterior(&hist, &big, 1.0, 1.0).map(|m| m.var);
        tx.send(()).unwrap();
        out
    });
    thread::sleep(Duration::from_millis(30));
    let stop = Stop::new();
    rx.recv().unwrap();
    drop(stop);
    let out = worker.join().unwrap();
    // It either finished before the stop or was interrupted: never a wrong number.
    assert!(
        matches!(out, Err(Error::Interrupted)) || out.as_ref().is_ok_and(|v| v.is_finite()),
        "{out:?}"
    );
}
