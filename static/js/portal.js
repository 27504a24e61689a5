// The portal's behaviour beyond htmx attributes. The Content-Security-Policy
// allows no inline code (no <script> blocks, no onchange=, no hx-on), so every
// handler lives here, listens on the document and finds its element by a data
// attribute or an id: it works for fragments htmx swaps in later, too.
"use strict";

// The language switch in the header submits on change (without JavaScript it has an OK button).
document.addEventListener("change", function (event) {
  const select = event.target;
  if (select.matches && select.matches("select[data-submit-on-change]") && select.form) {
    select.form.submit();
  }
});

// --- the question box (templates/qa/chat.html) ---------------------------------

function isAskForm(element) {
  return element && element.id === "ask-form";
}

// An answer was appended to the conversation: clear the box, old errors and the first-visit hint.
document.addEventListener("htmx:afterRequest", function (event) {
  const form = event.target;
  if (!isAskForm(form) || !event.detail.successful || !event.detail.target || event.detail.target.id !== "conversation") {
    return;
  }
  form.reset();
  document.getElementById("ask-errors").innerHTML = "";
  const hint = document.getElementById("empty-hint");
  if (hint) {
    hint.remove();
  }
});

// The server failed (5xx, or a network error): say so where the form's errors go. A portal
// error page (the 503 of a database that cannot be reached) says why: show its sentence.
function errorPageMessage(xhr) {
  if (!xhr || !xhr.responseText) {
    return "";
  }
  const page = new DOMParser().parseFromString(xhr.responseText, "text/html");
  const message = page.querySelector("[data-error-message]");
  return message ? message.textContent.trim() : "";
}

document.addEventListener("htmx:responseError", function (event) {
  const form = event.target;
  const xhr = event.detail.xhr;
  const reason = xhr && xhr.status === 503 ? errorPageMessage(xhr) : "";
  if (isAskForm(form)) {
    document.getElementById("ask-errors").textContent = reason || form.dataset.failedMessage;
  } else if (reason && form.matches && form.matches("form[data-swaps-400]")) {
    // The upload and replace forms: the reason goes on top of the form, which stays as filled in.
    let box = form.querySelector("[data-request-error]");
    if (!box) {
      box = document.createElement("div");
      box.setAttribute("role", "alert");
      box.dataset.requestError = "";
      form.prepend(box);
    }
    box.textContent = reason;
  }
});

// --- forms that answer a refused file with HTTP 400 and themselves (templates/documents/partials/) ---

function swapsBadRequest(event) {
  const xhr = event.detail.xhr;
  const target = event.target;
  return xhr && xhr.status === 400 && target.closest && target.closest("[data-swaps-400]") !== null;
}

// htmx does not swap a 4xx response by default: these forms' 400 is the form with its messages.
document.addEventListener("htmx:beforeSwap", function (event) {
  if (swapsBadRequest(event)) {
    event.detail.shouldSwap = true;
    event.detail.isError = false;
  }
});

// django-htmx's DEBUG helper (make run) shows any 400 answer to htmx as a whole page.
// This capture-phase listener runs first and keeps these forms' answers from reaching it;
// htmx itself goes on to swap them (above).
document.addEventListener(
  "htmx:beforeOnLoad",
  function (event) {
    if (swapsBadRequest(event)) {
      event.stopPropagation();
    }
  },
  true,
);

// Progress indicators ship with the `hidden` attribute: without JavaScript no request ever
// runs through htmx, so they must never show. With it, portal.css shows them during a request.
function revealIndicators() {
  document.querySelectorAll("[data-shown-by-script][hidden]").forEach(function (element) {
    element.hidden = false;
  });
}
document.addEventListener("DOMContentLoaded", revealIndicators);
document.addEventListener("htmx:load", revealIndicators);

// --- footnotes (templates/qa/partials/_answer.html) -------------------------------

// A footnote marker [n] opens its footnote, scrolls it into view and moves focus to it,
// so one click (or Enter on the focused marker) shows the quote. Without JavaScript the
// link still jumps to the footnote, which then opens with a second click.
function openFootnote(id) {
  const note = document.getElementById(id);
  if (!note || !note.closest(".footnotes")) {
    return false;
  }
  const details = note.querySelector("details");
  if (details) {
    details.open = true;
  }
  document.querySelectorAll(".footnotes li.fn-current").forEach(function (other) {
    other.classList.remove("fn-current");
  });
  note.classList.add("fn-current");
  note.scrollIntoView({ block: "center" });
  const summary = note.querySelector("summary");
  if (summary) {
    summary.focus({ preventScroll: true });
  }
  return true;
}

document.addEventListener("click", function (event) {
  const link = event.target.closest && event.target.closest("sup.fnref a[href^='#fn-']");
  if (!link) {
    return;
  }
  const hash = link.getAttribute("href");
  if (openFootnote(hash.slice(1))) {
    event.preventDefault();
    if (window.location.hash !== hash) {
      history.pushState(null, "", hash);
    }
  }
});

// A link to a footnote (a shared URL, the back button) opens it too.
function openFootnoteFromLocation() {
  if (window.location.hash.startsWith("#fn-")) {
    openFootnote(decodeURIComponent(window.location.hash.slice(1)));
  }
}
document.addEventListener("DOMContentLoaded", openFootnoteFromLocation);
window.addEventListener("hashchange", openFootnoteFromLocation);
