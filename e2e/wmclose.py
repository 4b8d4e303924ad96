#!/usr/bin/env python3
"""Asks an X window to close the way a window manager does: a WM_DELETE_WINDOW
client message (ICCCM 4.1.2.7), which GTK turns into its delete-event. Xvfb has
no window manager, and `xdotool windowclose` destroys the window instead of
asking, so the app's "close?" handling would never run.

Usage: DISPLAY=:N wmclose.py WINDOW_ID
Exits 0 once the message is sent; 1 with a message if the window does not
take WM_DELETE_WINDOW (then a window manager could not ask it either).
Only the standard library and libX11 (which GTK needs anyway)."""
import ctypes
import ctypes.util
import sys

ClientMessage = 33
NoEventMask = 0


class XClientMessageEvent(ctypes.Structure):
    _fields_ = [
        ("type", ctypes.c_int),
        ("serial", ctypes.c_ulong),
        ("send_event", ctypes.c_int),
        ("display", ctypes.c_void_p),
        ("window", ctypes.c_ulong),
        ("message_type", ctypes.c_ulong),
        ("format", ctypes.c_int),
        ("l", ctypes.c_long * 5),
    ]


class XEvent(ctypes.Union):
    # Xlib's XEvent is a union padded to 24 longs.
    _fields_ = [("xclient", XClientMessageEvent), ("pad", ctypes.c_long * 24)]


def main():
    if len(sys.argv) != 2:
        print("usage: wmclose.py WINDOW_ID", file=sys.stderr)
        return 2
    window = int(sys.argv[1], 0)
    x11 = ctypes.CDLL(ctypes.util.find_library("X11") or "libX11.so.6")
    x11.XOpenDisplay.restype = ctypes.c_void_p
    x11.XOpenDisplay.argtypes = [ctypes.c_char_p]
    x11.XInternAtom.restype = ctypes.c_ulong
    x11.XInternAtom.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
    x11.XGetWMProtocols.argtypes = [ctypes.c_void_p, ctypes.c_ulong,
                                    ctypes.POINTER(ctypes.POINTER(ctypes.c_ulong)), ctypes.POINTER(ctypes.c_int)]
    x11.XSendEvent.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_long, ctypes.POINTER(XEvent)]
    x11.XSync.argtypes = [ctypes.c_void_p, ctypes.c_int]
    x11.XFree.argtypes = [ctypes.c_void_p]
    x11.XCloseDisplay.argtypes = [ctypes.c_void_p]

    dpy = x11.XOpenDisplay(None)
    if not dpy:
        print("wmclose: cannot open the display (is DISPLAY set?)", file=sys.stderr)
        return 1
    try:
        protocols = x11.XInternAtom(dpy, b"WM_PROTOCOLS", False)
        delete = x11.XInternAtom(dpy, b"WM_DELETE_WINDOW", False)
        atoms = ctypes.POINTER(ctypes.c_ulong)()
        n = ctypes.c_int(0)
        if not x11.XGetWMProtocols(dpy, window, ctypes.byref(atoms), ctypes.byref(n)):
            print(f"wmclose: window {window:#x} has no WM_PROTOCOLS", file=sys.stderr)
            return 1
        taken = [atoms[i] for i in range(n.value)]
        x11.XFree(atoms)
        if delete not in taken:
            print(f"wmclose: window {window:#x} does not take WM_DELETE_WINDOW", file=sys.stderr)
            return 1
        ev = XEvent()
        ev.xclient.type = ClientMessage
        ev.xclient.window = window
        ev.xclient.message_type = protocols
        ev.xclient.format = 32
        ev.xclient.l[0] = delete
        ev.xclient.l[1] = 0  # CurrentTime
        if not x11.XSendEvent(dpy, window, False, NoEventMask, ctypes.byref(ev)):
            print("wmclose: XSendEvent failed", file=sys.stderr)
            return 1
        x11.XSync(dpy, False)
        return 0
    finally:
        x11.XCloseDisplay(dpy)


if __name__ == "__main__":
    sys.exit(main())
