"""A control pressed on a live page is pressed, even when the page grows above it meanwhile."""

from __future__ import annotations

from playwright.sync_api import Page

from harness.products.controls import press

# A form whose page grows above the Send button the moment the mouse goes down on it, as a live thread
# does when an agent's reply arrives during a click. Every submit is counted.
SHIFTING_FORM = """
<div id="thread"></div>
<form id="composer"><textarea>hello</textarea><button type="submit">Send</button></form>
<script>
  window.sent = 0;
  document.getElementById("composer").addEventListener("submit", (event) => {
    event.preventDefault();
    window.sent += 1;
  });
  document.querySelector("button").addEventListener("mousedown", () => {
    const reply = document.createElement("p");
    reply.style.height = "120px";
    reply.textContent = "Working on it.";
    document.getElementById("thread").appendChild(reply);
  });
</script>
"""


def test_a_pointer_click_is_lost_when_the_page_grows_above_the_control(page: Page) -> None:
    """The premise: the race the keyboard press exists for is real in this browser."""
    page.set_content(SHIFTING_FORM)
    page.get_by_role("button", name="Send").click()
    assert page.evaluate("window.sent") == 0


def test_a_pressed_control_submits_once_wherever_the_page_moves_it(page: Page) -> None:
    page.set_content(SHIFTING_FORM)
    press(page.get_by_role("button", name="Send"))
    assert page.evaluate("window.sent") == 1


def test_a_disabled_control_is_pressed_once_enabled_and_enter_never_reaches_the_text(page: Page) -> None:
    page.set_content(SHIFTING_FORM)
    page.get_by_role("textbox").focus()
    page.evaluate(
        """() => {
            const button = document.querySelector("button");
            button.disabled = true;  // a send in flight
            setTimeout(() => { button.disabled = false; }, 300);
        }"""
    )
    press(page.get_by_role("button", name="Send"))
    assert page.evaluate("window.sent") == 1
    assert page.get_by_role("textbox").input_value() == "hello"
