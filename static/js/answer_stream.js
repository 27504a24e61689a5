// The question box's answer, streamed (templates/qa/chat.html, qa.views.ask_stream).
//
// With fetch and ReadableStream, a question is posted to the form's data-stream-url (the
// form's own URL) with Accept: text/event-stream, and the answer card appears at once: the draft text grows as the provider writes it, marked
// as not yet checked, with no badge and no footnotes. When the verified answer comes
// (`answer` event: the same HTML htmx would have swapped in) it replaces the draft. The
// stop button aborts the request; the server then cancels the provider call and stores
// the answer as stopped. Without this script the form posts (htmx or plain) as before.
"use strict";

(function () {
  if (!window.fetch || !window.ReadableStream || !window.AbortController || !window.TextDecoder) {
    return;
  }

  function draftCard(form, question) {
    const article = document.createElement("article");
    article.className = "draft-exchange";
    article.dataset.answerDraft = "";
    const asked = document.createElement("div");
    asked.className = "question";
    const askedText = document.createElement("p");
    askedText.textContent = question;
    asked.appendChild(askedText);
    const card = document.createElement("div");
    card.className = "card draft-answer";
    card.setAttribute("aria-busy", "true");
    const label = document.createElement("p");
    label.className = "draft-label muted";
    label.setAttribute("role", "status");
    label.textContent = form.dataset.draftLabel;
    const text = document.createElement("p");
    text.className = "draft-text";
    const stop = document.createElement("button");
    stop.type = "button";
    stop.className = "stop-answer";
    stop.dataset.stopAnswer = "";
    stop.textContent = form.dataset.stopLabel;
    card.append(label, text, stop);
    article.append(asked, card);
    return { article: article, label: label, text: text, stop: stop, card: card };
  }

  // Server-Sent Events from a fetch body: calls onEvent(name, data) for each complete event.
  async function readEvents(response, onEvent) {
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) {
        return;
      }
      buffer += decoder.decode(chunk.value, { stream: true });
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let name = "message";
        const data = [];
        block.split("\n").forEach(function (line) {
          if (line.startsWith("event: ")) {
            name = line.slice(7);
          } else if (line.startsWith("data: ")) {
            data.push(line.slice(6));
          }
        });
        if (data.length) {
          onEvent(name, JSON.parse(data.join("\n")));
        }
      }
    }
  }

  function showErrors(form, html, message) {
    const box = document.getElementById("ask-errors");
    if (html) {
      htmx.swap(box, html, { swapStyle: "innerHTML" });
    } else {
      box.textContent = message || form.dataset.failedMessage;
    }
  }

  function answered(form, draft, data) {
    draft.article.remove();
    htmx.swap(document.getElementById("conversation"), data.html, { swapStyle: "beforeend" });
    history.pushState({}, "", data.url);
    form.reset();
    document.getElementById("ask-errors").innerHTML = "";
    const hint = document.getElementById("empty-hint");
    if (hint) {
      hint.remove();
    }
  }

  function stopped(form, draft) {
    draft.label.textContent = form.dataset.stoppedLabel;
    draft.card.classList.add("stopped");
    draft.card.removeAttribute("aria-busy");
    draft.stop.remove();
  }

  async function ask(form) {
    const body = new FormData(form);
    const question = String(body.get("text") || "").trim();
    const submit = form.querySelector("button[type=submit]");
    const controller = new AbortController();
    const draft = draftCard(form, question);
    let finished = false;
    draft.stop.addEventListener("click", function () {
      controller.abort();
    });
    const indicator = document.getElementById("ask-indicator");
    document.getElementById("conversation").appendChild(draft.article);
    submit.disabled = true;
    if (indicator) {
      indicator.classList.add("htmx-request"); // the same "answering…" indicator htmx shows
    }
    try {
      const response = await fetch(form.dataset.streamUrl, {
        method: "POST",
        body: body,
        headers: { Accept: "text/event-stream" },
        credentials: "same-origin",
        signal: controller.signal,
      });
      const type = response.headers.get("Content-Type") || "";
      if (!type.startsWith("text/event-stream")) {
        // A server failure answered with a page (the 503 of a database that cannot be reached says why).
        const page = new DOMParser().parseFromString(await response.text(), "text/html");
        const reason = response.status === 503 ? page.querySelector("[data-error-message]") : null;
        draft.article.remove();
        showErrors(form, "", reason ? reason.textContent.trim() : "");
        return;
      }
      await readEvents(response, function (name, data) {
        if (name === "delta") {
          draft.text.textContent += data.text;
        } else if (name === "answer") {
          finished = true;
          answered(form, draft, data);
        } else if (name === "error") {
          finished = true;
          draft.article.remove();
          showErrors(form, data.html, data.detail);
        }
      });
      if (!finished) {
        draft.article.remove();
        showErrors(form, "", "");
      }
    } catch (error) {
      if (controller.signal.aborted) {
        stopped(form, draft);
      } else {
        draft.article.remove();
        showErrors(form, "", "");
      }
    } finally {
      submit.disabled = false;
      if (indicator) {
        indicator.classList.remove("htmx-request");
      }
    }
  }

  // Captured on the document before htmx (which listens on the form itself) sees the submit.
  document.addEventListener(
    "submit",
    function (event) {
      const form = event.target;
      if (!form || form.id !== "ask-form" || !form.dataset.streamUrl || !window.htmx) {
        return;
      }
      event.preventDefault();
      event.stopImmediatePropagation();
      if (!form.reportValidity()) {
        return;
      }
      ask(form);
    },
    true
  );
})();
