#!/usr/bin/env python3
"""Exports a report's Summary page (as shown, and transposed) and Raw page to CSV through
the Nsight Compute GUI, the way a user does with the page's "Export to CSV" menu item.

The GUI runs under Xvfb and is driven with XTEST input (python-xlib); screenshots go next
to the exports, to see what was clicked. The coordinates are those of Nsight Compute
2022.3.0's window on a 1600x1000 screen (Debian's nsight-compute package, the GUI that
runs on a machine without a GPU here; the H200 machine lacks the GUI's X and GL
libraries). That GUI opens a 2025.3.1 report only when ncu profiled it with
`--apply-rules no`: its reader fails on newer rule results.

    apt-get install xvfb ./nsight-compute_2022.3*.deb ./nsight-compute-target_2022.3*.deb
    pip install python-xlib pillow
    Xvfb :99 -screen 0 1600x1000x24 &
    scripts/gui-export.py REPORT.ncu-rep OUT_DIR
"""

import os
import signal
import subprocess
import sys
import time

from PIL import Image
from Xlib import X, XK, display
from Xlib.ext import xtest

SCREEN = ":99"
GUI = "/usr/lib/nsight-compute/host/linux-desktop-glibc_2_11_3-x64/ncu-ui"
# Points on the 1600x1000 screen.
USAGE_DIALOG_NO = (814, 451)  # "Help Improve NVIDIA Software", shown on a first start
PAGE_MENU = (268, 97)
RAW_FROM_SUMMARY = (230, 206)  # the Page list opens around the current page
EXPORT_MENU_ARROW = (1342, 97)
EXPORT_TO_CSV = (1308, 184)
TRANSPOSE = (187, 176)

disp = display.Display(SCREEN)
root = disp.screen().root


def shot(path):
    geometry = root.get_geometry()
    raw = root.get_image(0, 0, geometry.width, geometry.height, X.ZPixmap, 0xFFFFFFFF)
    Image.frombytes("RGB", (geometry.width, geometry.height), raw.data, "raw", "BGRX").save(path)


def click(point, pause=1.0):
    xtest.fake_input(disp, X.MotionNotify, x=point[0], y=point[1])
    disp.sync()
    time.sleep(0.15)
    xtest.fake_input(disp, X.ButtonPress, 1)
    disp.sync()
    time.sleep(0.05)
    xtest.fake_input(disp, X.ButtonRelease, 1)
    disp.sync()
    time.sleep(pause)


def key(keysym, shift=False):
    code = disp.keysym_to_keycode(XK.string_to_keysym(keysym))
    shift_code = disp.keysym_to_keycode(XK.string_to_keysym("Shift_L"))
    if shift:
        xtest.fake_input(disp, X.KeyPress, shift_code)
    xtest.fake_input(disp, X.KeyPress, code)
    xtest.fake_input(disp, X.KeyRelease, code)
    if shift:
        xtest.fake_input(disp, X.KeyRelease, shift_code)
    disp.sync()
    time.sleep(0.05)


def type_text(text):
    names = {"/": "slash", ".": "period", "-": "minus", "_": "underscore"}
    for ch in text:
        key(names.get(ch, ch), shift=ch == "_" or ch.isupper())


def export(path):
    click(EXPORT_MENU_ARROW)
    click(EXPORT_TO_CSV, pause=2.0)
    type_text(path)
    key("Return")
    time.sleep(3.0)
    if not os.path.exists(path):
        sys.exit(f"the GUI wrote no {path}; see the screenshots")


def main():
    report, out = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    os.makedirs(out, exist_ok=True)
    env = dict(os.environ, DISPLAY=SCREEN)
    gui = subprocess.Popen(
        [GUI, report],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        time.sleep(25)
        shot(f"{out}/1-opened.png")
        click(USAGE_DIALOG_NO)
        shot(f"{out}/2-summary.png")
        export(f"{out}/summary.csv")
        click(TRANSPOSE)
        shot(f"{out}/3-summary-transposed.png")
        export(f"{out}/summary_transposed.csv")
        click(TRANSPOSE)
        click(PAGE_MENU)
        click(RAW_FROM_SUMMARY, pause=3.0)
        shot(f"{out}/4-raw.png")
        export(f"{out}/raw.csv")
    finally:
        # The launcher script starts ncu-ui.bin and a crash reporter: stop them all.
        os.killpg(gui.pid, signal.SIGTERM)
        gui.wait(timeout=30)


if __name__ == "__main__":
    main()
