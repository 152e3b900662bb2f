//! A `monte` process driven line by line through pipes, as a script, a
//! tournament runner or a GUI drives it.

// Each test file uses a different part of this module.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

/// How long any single answer may take before the test fails (a hang, not
/// a speed measurement).
pub const PATIENCE: Duration = Duration::from_secs(30);

pub struct Monte {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    /// Everything read so far, for failure messages.
    pub transcript: Vec<String>,
}

impl Monte {
    pub fn start(args: &[&str]) -> Monte {
        let mut child = Command::new(env!("CARGO_BIN_EXE_monte"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start monte");
        let stdout = child.stdout.take().expect("piped stdout");
        let stdin = child.stdin.take();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Monte { child, stdin, lines, transcript: Vec::new() }
    }

    pub fn send(&mut self, line: &str) {
        self.transcript.push(format!(">>> {line}"));
        let stdin = self.stdin.as_mut().expect("stdin still open");
        writeln!(stdin, "{line}").expect("write to monte");
        stdin.flush().expect("flush");
    }

    /// Close standard input (the end of a script).
    pub fn close_input(&mut self) {
        self.stdin = None;
    }

    /// The next line, or `None` when the output has ended.
    pub fn next_line(&mut self) -> Option<String> {
        match self.lines.recv_timeout(PATIENCE) {
            Ok(line) => {
                self.transcript.push(line.clone());
                Some(line)
            }
            Err(RecvTimeoutError::Disconnected) => None,
            Err(RecvTimeoutError::Timeout) => panic!("no output for {PATIENCE:?}; so far:\n{}", self.transcript()),
        }
    }

    /// Read lines up to and including the first that `until` accepts;
    /// returns them all.
    pub fn read_until(&mut self, until: impl Fn(&str) -> bool) -> Vec<String> {
        let start = Instant::now();
        let mut lines = Vec::new();
        loop {
            let Some(line) = self.next_line() else {
                panic!("output ended while waiting; so far:\n{}", self.transcript());
            };
            let done = until(&line);
            lines.push(line);
            if done {
                return lines;
            }
            assert!(start.elapsed() < PATIENCE * 2, "waited too long; so far:\n{}", self.transcript());
        }
    }

    /// The rest of the output, after closing the input.
    pub fn finish(mut self) -> Vec<String> {
        self.close_input();
        let mut rest = Vec::new();
        while let Some(line) = self.next_line() {
            rest.push(line);
        }
        let status = self.child.wait().expect("wait for monte");
        assert!(status.success(), "monte failed: {status}; output:\n{}", self.transcript());
        rest
    }

    /// Wait for the process to end by itself.
    pub fn wait(mut self) -> std::process::ExitStatus {
        while self.next_line().is_some() {}
        self.child.wait().expect("wait for monte")
    }

    pub fn transcript(&self) -> String {
        self.transcript.join("\n")
    }
}

impl Drop for Monte {
    fn drop(&mut self) {
        // A failed test must not leave a searching process behind.
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// A fresh scratch directory for files a test writes.
pub fn scratch_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("monte-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create a scratch directory");
    dir
}
