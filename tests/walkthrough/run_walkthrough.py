#!/usr/bin/env python3
"""Runs a steps file against the real studio window in its own X server, as a learner would.

  run_walkthrough.py --studio PROGRAM --steps FILE --size 1280x720 --out FOLDER [--home FOLDER]

It starts Xvfb at the size given, starts the studio there on a fresh account (its own HOME, so a
first start), with BACKPROP_STUDIO_PROBE set, runs each line of the steps file with bash (the
lines use tests/walkthrough/walk) and saves the screen after each step as FOLDER/step-NN.png.
It stops at the first step that fails, with the step, its message and the end of the studio's
log, and exits 1. Every step has a time bound, and the studio and the X server always end.
"""
import argparse
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

STEP_SECONDS = 420  # the longest step (a first Train on a cold cache, on a busy machine) is far below it
HERE = os.path.dirname(os.path.abspath(__file__))


def start_xvfb(width, height, seconds=30):
    """An X server on a display number it picks itself (-displayfd): two walkthroughs never race for one."""
    read_end, write_end = os.pipe()
    xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(write_end), "-screen", "0", "%dx%dx24" % (width, height),
                             "-nolisten", "tcp"], pass_fds=(write_end,),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write_end)
    number = b""
    deadline = time.monotonic() + seconds
    while not number.endswith(b"\n"):
        ready, _, _ = select.select([read_end], [], [], max(0.0, deadline - time.monotonic()))
        chunk = os.read(read_end, 16) if ready else b""
        if not chunk:
            xvfb.kill()
            raise SystemExit("walkthrough: Xvfb did not start within %d s (status %s)" % (seconds, xvfb.poll()))
        number += chunk
    os.close(read_end)
    return xvfb, ":" + number.decode().strip()


def tail(path, lines=40):
    try:
        with open(path, errors="replace") as handle:
            return "".join(handle.readlines()[-lines:])
    except OSError:
        return "(no log)"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--studio", required=True)
    parser.add_argument("--steps", required=True)
    parser.add_argument("--size", default="1280x720")
    parser.add_argument("--out", required=True)
    parser.add_argument("--home", help="the learner's home folder (default: a new temporary one)")
    options = parser.parse_args()
    width, height = (int(part) for part in options.size.split("x"))
    os.makedirs(options.out, exist_ok=True)
    for old in os.listdir(options.out):
        if old.startswith("step-") and old.endswith(".png"):
            os.remove(os.path.join(options.out, old))
    for tool in ("Xvfb", "xdotool"):
        if not shutil.which(tool):
            raise SystemExit("walkthrough: %s is not installed (packaging/setup-debian.sh installs it)" % tool)

    home = options.home or tempfile.mkdtemp(prefix="walkthrough-home-")
    probe = tempfile.mkdtemp(prefix="walkthrough-probe-")
    xvfb, display = start_xvfb(width, height)
    studio = None
    log_path = os.path.join(options.out, "studio.log")
    try:
        env = dict(os.environ)
        env.pop("QT_QPA_PLATFORM", None)  # the real X window, not the offscreen one the unit tests use
        env.update({
            "DISPLAY": display, "HOME": home,
            "XDG_CONFIG_HOME": os.path.join(home, ".config"), "XDG_DATA_HOME": os.path.join(home, ".local/share"),
            "XDG_CACHE_HOME": os.path.join(home, ".cache"), "XDG_RUNTIME_DIR": tempfile.mkdtemp(prefix="walk-xdg-"),
            "BACKPROP_STUDIO_PROBE": probe, "WALK_PROBE": probe, "WALK_OUT": options.out,
            "PATH": HERE + os.pathsep + env.get("PATH", ""),
        })
        with open(log_path, "w") as log:
            studio = subprocess.Popen([options.studio], env=env, stdout=log, stderr=subprocess.STDOUT)
        with open(options.steps) as handle:
            steps = [line.strip() for line in handle if line.strip() and not line.strip().startswith("#")]
        for index, step in enumerate(steps, start=1):
            if studio.poll() is not None:
                raise SystemExit("walkthrough: the studio ended with status %d before step %d (%s)\n%s"
                                 % (studio.returncode, index, step, tail(log_path)))
            print("step %d: %s" % (index, step), flush=True)
            started = time.monotonic()
            try:
                result = subprocess.run(["bash", "-c", step], env=env, timeout=STEP_SECONDS)
            except subprocess.TimeoutExpired:
                raise SystemExit("walkthrough: step %d (%s) ran past %d s\n%s" % (index, step, STEP_SECONDS, tail(log_path)))
            if result.returncode != 0:
                subprocess.run(["bash", "-c", "walk shot step-%02d-failed" % index], env=env, timeout=60)
                raise SystemExit("walkthrough: step %d failed at %s: %s\nthe studio's log ends:\n%s"
                                 % (index, options.size, step, tail(log_path)))
            shot = subprocess.run(["bash", "-c", "walk shot step-%02d" % index], env=env, timeout=60)
            if shot.returncode != 0:
                raise SystemExit("walkthrough: no screenshot after step %d" % index)
            print("  done in %.1f s" % (time.monotonic() - started), flush=True)
        print("walkthrough at %s: %d steps passed; screenshots in %s" % (options.size, len(steps), options.out))
        # Ended as a logout ends it: SIGTERM closes the studio as Quit does, which asks first about
        # the project the learner never saved; its work is not kept here. A studio killed instead
        # leaves its devices' use marks, which the next start on the tests' shared kernel cache
        # takes for a crash.
        studio.send_signal(signal.SIGTERM)
        try:
            studio.wait(10)
        except subprocess.TimeoutExpired:
            subprocess.run(["bash", "-c", "walk button Discard"], env=env, timeout=60)
        try:
            status = studio.wait(60)
        except subprocess.TimeoutExpired:
            raise SystemExit("walkthrough: the studio did not end within 60 s of SIGTERM and Discard\n%s" % tail(log_path))
        if status != 0:
            raise SystemExit("walkthrough: the studio ended with status %d after SIGTERM\n%s" % (status, tail(log_path)))
    finally:
        if studio and studio.poll() is None:
            studio.send_signal(signal.SIGTERM)
            try:
                studio.wait(20)
            except subprocess.TimeoutExpired:
                studio.kill()
                studio.wait()
        xvfb.terminate()
        try:
            xvfb.wait(10)
        except subprocess.TimeoutExpired:
            xvfb.kill()
        shutil.rmtree(probe, ignore_errors=True)
        if not options.home:
            shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
