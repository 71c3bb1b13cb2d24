"""Is an image file whole? A JPEG or PNG cut short (a copy interrupted, a card pulled) decodes to
a partly grey picture that looks like "no ring found"; name it as what it is instead."""

JPEG_SOI, JPEG_EOI = b"\xff\xd8", b"\xff\xd9"
PNG_SIG, PNG_IEND = b"\x89PNG\r\n\x1a\n", b"IEND"


def image_problem(data):
    """-> None for a whole (or unknown-format) file, else what is wrong, as a phrase."""
    if not data:
        return "is empty (0 bytes): copy it again from the camera"
    if data.startswith(JPEG_SOI):
        # Some cameras pad after the end marker: look for it near the end.
        if JPEG_EOI not in data[-4096:]:
            return ("is truncated (the JPEG stops before its end marker): copy it again "
                    "from the camera")
    elif data.startswith(PNG_SIG):
        if PNG_IEND not in data[-64:]:
            return "is truncated (the PNG has no IEND chunk): copy it again from the camera"
    return None
