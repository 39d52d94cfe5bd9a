"""Splitting lists into batches and windows, e.g. for paging API calls."""


def chunks(items, size):
    """Split items into consecutive lists of at most size elements."""
    if size < 1:
        raise ValueError("size must be at least 1")
    return [items[i:i + size] for i in range(0, len(items), size)]


def sliding_windows(items, width, step=1):
    """Return every full window of width elements, moving by step."""
    if width < 1 or step < 1:
        raise ValueError("width and step must be at least 1")
    return [items[i:i + width] for i in range(0, len(items) - width + 1, step)]


def split_evenly(items, parts):
    """Split items into parts lists whose lengths differ by at most one (longer first)."""
    if parts < 1:
        raise ValueError("parts must be at least 1")
    base, extra = divmod(len(items), parts)
    result, start = [], 0
    for index in range(parts):
        end = start + base + (1 if index < extra else 0)
        result.append(items[start:end])
        start = end
    return result


def flatten(nested):
    """Flatten one level of nesting."""
    return [item for group in nested for item in group]
