"""A live page's controls and contents: a pressed control is pressed, and a read sees one rendered moment."""

from __future__ import annotations

from playwright.sync_api import Page

from harness.products.controls import follow, press, read_all

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


# A live fragment that swaps itself for a fresh copy in every task of the page, as the testbed's thread does when
# it changes, so that any read spanning two round trips to the page gets an element that has gone.
CHURNING_CARD = """
<div id="live"></div>
<script>
  const card = '<div class="card">\\n    <p>Avery asks you for an email address.</p>\\n    <button>Save key</button>\\n  </div>';
  const live = document.getElementById("live");
  const swap = () => { live.innerHTML = card; setTimeout(swap, 0); };
  swap();
</script>
"""
SHOWN_TEXT = "Avery asks you for an email address.\n\nSave key"


def test_a_read_in_two_round_trips_gets_a_swapped_out_element_and_its_raw_text(page: Page) -> None:
    """The premise: Playwright's evaluate_all finds and reads in two steps, and the fragment changes between."""
    page.set_content(CHURNING_CARD)
    reads = [
        page.locator(".card").evaluate_all("cards => cards.map(c => [c.isConnected, c.innerText])") for _ in range(20)
    ]
    assert any(read and not read[0][0] for read in reads), reads
    assert any(read and read[0][1] != SHOWN_TEXT for read in reads)


def test_read_all_reads_the_shown_elements_in_one_moment(page: Page) -> None:
    page.set_content(CHURNING_CARD)
    for _ in range(20):
        assert read_all(page, ".card", "c => [c.isConnected, c.innerText]") == [[True, SHOWN_TEXT]]


# A live fragment swapped for a fresh copy the first time the mouse goes down on its link, as the testbed's task page
# does when a child's status changes during the click; the link leads to a page of its own.
SWAPPED_LINK = """
<div id="live"><a id="child" href="#child-page">#2 Build it</a></div>
<div id="child-page" hidden>the child's page</div>
<script>
  window.addEventListener("hashchange", () => { document.getElementById("child-page").hidden = false; });
  document.getElementById("child").addEventListener("mousedown", () => {
    const live = document.getElementById("live");
    live.innerHTML = live.innerHTML;
  }, { once: true });
</script>
"""


def test_a_click_is_lost_when_the_fragment_swaps_its_link_under_the_mouse(page: Page) -> None:
    """The premise: the race ``follow`` exists for is real in this browser."""
    page.set_content(SWAPPED_LINK)
    page.locator("#child").click()
    assert page.evaluate("location.hash") == "" and page.locator("#child-page").is_hidden()


def test_a_followed_link_reaches_its_page_though_the_first_click_was_lost(page: Page) -> None:
    page.set_content(SWAPPED_LINK)
    follow(page.locator("#child"), page.locator("#child-page"))
    assert page.locator("#child-page").is_visible()
