"""Wiring diagram: draws the Pico / Pico 2 header with every pin-map function as plain SVG text."""
from xml.sax.saxutils import escape

from .pinmap import HEADER, GPIO_TO_PHYS, pins_sorted

COLOURS = {"beam": "#c0392b", "button": "#2c3e50", "mat": "#8e44ad", "light": "#d68910",
           "wall": "#16a085", "piezo": "#2471a3", "status": "#7f8c8d"}
POWER = {"GND": "#000000", "AGND": "#000000", "3V3(OUT)": "#c0392b", "VSYS": "#e67e22",
         "VBUS": "#e67e22"}
POWER_NOTES = {"VBUS": "VBUS: USB 5 V from the host PC (through the USB isolator)",
               "VSYS": "VSYS: 5 V from the 24->5 V regulator via a 1N5817 Schottky",
               "3V3(OUT)": "3V3(OUT): pull-ups, MCP6002 and LM393 supply (300 mA max)",
               "AGND": "AGND: envelope board ground (piezo shields)"}
PITCH = 24          # px between header pins
TOP = 110           # y of physical pin 1
BOARD_X, BOARD_W = 720, 160
WIDTH = 1600


def _pin_xy(phys):
    """Pad centre of a physical pin: 1..20 down the left edge, 21..40 up the right."""
    if phys <= 20:
        return BOARD_X, TOP + (phys - 1) * PITCH, -1
    return BOARD_X + BOARD_W, TOP + (40 - phys) * PITCH, 1


def render_svg(pm):
    """SVG text of the header with the connected functions (deterministic output)."""
    by_gpio = {p["gpio"]: p for p in pins_sorted(pm)}
    boards = " / ".join("%s (%s, %s)" % (b["name"], b["mcu"], b["part"]) for b in pm["boards"])
    height = TOP + 20 * PITCH + 150
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">'
           % (WIDTH, height, WIDTH, height),
           '<!-- GENERATED from hardware/pinmap.json by `ring device pinmap generate`; '
           'do not edit -->',
           '<rect width="%d" height="%d" fill="#ffffff"/>' % (WIDTH, height),
           '<text x="800" y="30" text-anchor="middle" font-size="18" font-weight="bold">'
           'Two-Up ring controller: ring board wiring</text>',
           '<text x="800" y="52" text-anchor="middle" font-size="12">%s, top view, USB up'
           '</text>' % escape(boards),
           '<rect x="%d" y="%d" width="%d" height="%d" rx="8" fill="#1e8449" stroke="#145a32"/>'
           % (BOARD_X, TOP - 30, BOARD_W, 20 * PITCH + 36),
           '<rect x="%d" y="%d" width="40" height="26" fill="#bdc3c7" stroke="#7f8c8d"/>'
           % (BOARD_X + BOARD_W // 2 - 20, TOP - 44),
           '<text x="%d" y="%d" text-anchor="middle" fill="#ffffff" font-size="10">USB</text>'
           % (BOARD_X + BOARD_W // 2, TOP - 26)]
    for phys in sorted(HEADER):
        label = HEADER[phys]
        x, y, side = _pin_xy(phys)
        gpio = int(label[2:]) if label.startswith("GP") else None
        p = by_gpio.get(gpio)
        fill = COLOURS.get(p["group"], "#555555") if p else POWER.get(label, "#dddddd")
        out.append('<circle cx="%d" cy="%d" r="6" fill="%s" stroke="#333333"/>' % (x, y, fill))
        inner = x - side * 12
        anchor = "start" if side < 0 else "end"
        out.append('<text x="%d" y="%d" text-anchor="%s" fill="#ffffff" font-size="10">%d %s'
                   '</text>' % (inner, y + 4, anchor, phys, escape(label)))
        if p is None and label not in POWER:
            continue
        end = x + side * 60
        out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"/>'
                   % (x + side * 6, y, end, y, fill))
        tx = end + side * 6
        anchor = "end" if side < 0 else "start"
        if p is None:
            text = POWER_NOTES.get(label, label)
        else:
            extra = "ADC%d" % p["adc"] if p["kind"] == "adc" else (
                ("pull-%s" % p["pull"] if p.get("pull") else "") + (", active %s" % p["active"]))
            text = "%s: %s [%s]" % (p["name"], p["role"], extra.strip(", "))
        out.append('<text x="%d" y="%d" text-anchor="%s" fill="%s">%s</text>'
                   % (tx, y + 4, anchor, fill, escape(text)))
    internal = [p for p in pins_sorted(pm) if p["gpio"] not in GPIO_TO_PHYS]
    y = TOP + 20 * PITCH + 40
    for p in internal:
        out.append('<text x="40" y="%d" fill="%s">on the board (no header pin): GP%d %s: %s</text>'
                   % (y, COLOURS.get(p["group"], "#555555"), p["gpio"], p["name"],
                      escape(p["role"])))
        y += 18
    notes = [_input_note(pm),
             "The LM393 wall trigger goes HIGH on a strike. Every signal stays at 3V3 logic "
             "(never 5 V or 24 V on a GPIO).",
             "Stack light: each LIGHT_*/BUZZER pin drives a logic-level MOSFET low-side switch; "
             "24 V supply ground joins board GND at one point."]
    for n in notes:
        out.append('<text x="40" y="%d" fill="#333333">%s</text>' % (y, escape(n)))
        y += 18
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _input_note(pm):
    """What an undriven (cut) input reads, from the map's pull and active level: the
    installer must see which way each cable fails (beams must fail "broken", 7.3.1)."""
    parts = []
    for g, what in (("beam", "beam broken"), ("mat", "on the mat"), ("button", "pressed")):
        ps = [p for p in pm["pins"] if p.get("group") == g and p.get("kind") == "input"]
        if not ps:
            continue
        p = ps[0]
        idle = {"up": "HIGH", "down": "LOW"}.get(p.get("pull"), "floating")
        active = p["active"].upper()
        cut = ("reads %s" % what) if idle == active else ("reads not %s" % what)
        parts.append("%s: %s = %s, cut cable (%s) %s" % (g, active, what, idle, cut))
    return "Inputs (from pinmap.json): " + "; ".join(parts) + "."
