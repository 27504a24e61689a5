"""``{{ text|markdown }}``: untrusted Markdown rendered safely (see ``qa.presenters.render_markdown``)."""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString

from qa.presenters import render_markdown

register = template.Library()


@register.filter(name="markdown")
def markdown_filter(text: str) -> SafeString:
    """Render Markdown with raw HTML disabled and the output allow-list sanitised."""
    return render_markdown(str(text or ""))
