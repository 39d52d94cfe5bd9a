"""Pagination helpers for list views and APIs.

Pages are numbered from 1. A page window is the short list of page numbers
shown in a pager, with None marking an elided gap ("1 ... 4 5 6 ... 20").
"""


def page_count(total_items, per_page):
    """Return the number of pages needed; an empty list still has one page."""
    if per_page < 1:
        raise ValueError("per_page must be at least 1")
    if total_items <= 0:
        return 1
    return (total_items + per_page - 1) // per_page


def page_bounds(page, total_items, per_page):
    """Return (start, end) slice indices of a page; raises ValueError if out of range."""
    pages = page_count(total_items, per_page)
    if not 1 <= page <= pages:
        raise ValueError(f"page {page} out of range 1..{pages}")
    start = (page - 1) * per_page
    end = min(start + per_page, total_items)
    return start, max(end, start)


def paginate(items, page, per_page):
    """Return a dict describing one page of items."""
    start, end = page_bounds(page, len(items), per_page)
    pages = page_count(len(items), per_page)
    return {
        "items": items[start:end],
        "page": page,
        "pages": pages,
        "has_previous": page > 1,
        "has_next": page < pages,
        "first_index": start + 1 if end > start else 0,
        "last_index": end,
    }


def page_window(current, pages, radius=2):
    """Return page numbers around current, always including the first and last page.

    Gaps of two or more pages become None; a gap of a single page shows that page.
    """
    if not 1 <= current <= pages:
        raise ValueError("current page out of range")
    low = max(1, current - radius)
    high = min(pages, current + radius)
    window = []
    if low > 1:
        window.append(1)
        if low > 3:
            window.append(None)
        elif low == 3:
            window.append(2)
    window.extend(range(low, high + 1))
    if high < pages:
        if high < pages - 2:
            window.append(None)
        elif high == pages - 2:
            window.append(pages - 1)
        window.append(pages)
    return window


def page_of_item(index, per_page):
    """Return the page number holding the item at 0-based index."""
    if index < 0:
        raise ValueError("index must be non-negative")
    return index // per_page + 1
