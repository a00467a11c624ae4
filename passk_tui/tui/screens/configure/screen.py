"""The configure screen: every setting, checked as you type, the error beside its field."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.reactive import reactive
from textual.screen import Screen
from textual.suggester import SuggestFromList
from textual.timer import Timer
from textual.widgets import Button, Checkbox, Collapsible, Header, Input, Label, Static

from passk_tui.core.inputs.schema import BY_NAME, COST_FIELDS
from passk_tui.core.text.terminal_text import terminal_safe
from passk_tui.evaluations.lookups import stack_versions
from passk_tui.tui.app.messages import DemoRequested, HistoryRequested, RunRequested
from passk_tui.tui.screens.configure.form import (
    SWITCHES,
    TEXT_FIELDS,
    FormCheck,
    FormValues,
    check_form,
)
from passk_tui.tui.widgets.key_bar import KeyBar

#: Seconds of quiet typing before the stack is asked about the agent.
STACK_CHECK_DELAY = 0.5


class ConfigureScreen(Screen[None]):
    """A form over Settings; Run stays disabled while any field is invalid."""

    #: Where focus lands, again after the terminal lost and regained it: the first field.
    AUTO_FOCUS = "#input-agent"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+r", "run", "Run", priority=True, tooltip="Start the evaluation as filled in"),
        Binding("d", "demo", "Run the demo", tooltip="The bundled demo suite and agent"),
    ]

    valid: reactive[bool] = reactive(False)
    """Whether every field holds a usable value (Run is enabled)."""

    def __init__(self, values: FormValues, *, env_key: str | None, offer_demo: bool) -> None:
        super().__init__()
        self.initial = values
        self.env_key = env_key
        self.offer_demo = offer_demo
        self.check = FormCheck()
        #: The stack's answer per (address, key, agent): versions, or the error.
        self._stack_answers: dict[tuple[str, str | None, str], list[int] | str] = {}
        self._stack_timer: Timer | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        if self.offer_demo:
            # Above the form, one Shift+Tab from the first field: what looks like a form is
            # typed into, and a letter typed there never starts the demo.
            with Horizontal(id="demo-offer"):
                yield Button("Run the demo", id="demo", compact=True)
                yield Static(
                    "New here? [b]Shift+Tab[/], [b]Enter[/] runs the bundled demo: five cases "
                    "on a deliberately flaky, simulated agent.",
                    id="demo-offer-text",
                )
        form = VerticalScroll(id="configure-form")
        form.can_focus = False  # a focus stop with nothing to type into: keys vanished there
        with form:
            for name in TEXT_FIELDS:
                if name not in COST_FIELDS:
                    yield from self._field(name)
            yield from self._switch("completion_only", message=False)
            yield from self._switch("family_wise", message=True)
            # Folded unless given: one line at 80x24, where the other fields fill the screen.
            given = any(str(self.initial.get(name) or "").strip() for name in COST_FIELDS)
            with Collapsible(title="Cost", collapsed=not given, id="cost"):
                for name in COST_FIELDS:
                    yield from self._field(name)
            with Horizontal(id="configure-buttons"):
                yield Button("Run", variant="success", id="run", disabled=True, compact=True)
                if not self.offer_demo:
                    yield Button("Run the demo", id="demo", compact=True)
                yield Button("History", id="history", compact=True)
                yield Static("", id="configure-problems")
        yield KeyBar()

    def _field(self, name: str) -> ComposeResult:
        """One text field's row: its label, its input, and the message beside it."""
        declared = BY_NAME[name]
        with Horizontal(classes="field", id=f"field-{name}"):
            yield Label(declared.label or name, classes="field-label")
            field = Input(
                str(self.initial.get(name, "") or ""),
                placeholder=declared.placeholder,
                id=f"input-{name}",
                password=name == "key",
                compact=True,
                classes="field-input",
            )
            field.tooltip = declared.tooltip or None
            yield field
            yield Static("", id=f"message-{name}", classes="field-message")

    def _switch(self, name: str, *, message: bool) -> ComposeResult:
        """One yes/no field's row: its label and checkbox (and the message beside it, for a
        switch the validator may refuse)."""
        declared = BY_NAME[name]
        with Horizontal(classes="field", id=f"field-{name}"):
            yield Label(declared.label or name, classes="field-label")
            yield Checkbox(
                declared.placeholder,
                bool(self.initial.get(name, False)),
                id=f"input-{name}",
                compact=True,
            )
            if message:
                yield Static("", id=f"message-{name}", classes="field-message")

    def on_mount(self) -> None:
        self.sub_title = "configure an evaluation"
        self.revalidate()
        self.query_one("#input-agent", Input).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """A lone `d` runs the demo only where it was offered (a fresh start), never in a field
        (a field takes the letter: Textual gives it to the focused Input first)."""
        if action == "demo":
            return self.offer_demo
        return True

    # -- validation --------------------------------------------------------------------

    def values(self) -> FormValues:
        values: FormValues = {
            name: self.query_one(f"#input-{name}", Input).value for name in TEXT_FIELDS
        }
        for name in SWITCHES:
            values[name] = self.query_one(f"#input-{name}", Checkbox).value
        return values

    def key(self) -> str | None:
        return self.query_one("#input-key", Input).value or self.env_key

    @on(Input.Changed)
    @on(Checkbox.Changed)
    def _changed(self) -> None:
        self.revalidate()

    def revalidate(self) -> None:
        """Check every field; show each error (or hint) beside its field; enable Run if valid."""
        values = self.values()
        check = check_form(values)
        self._merge_stack_answer(values, check)
        self.check = check
        if typed := self.query_one("#input-key", Input).value:
            check.hints["key"] = f"set (typed, {len(typed)} characters; never saved)"
        elif self.env_key:
            check.hints["key"] = "set (from --key or PASSK_KEY)"
        else:
            check.hints["key"] = "unset"
        for name in TEXT_FIELDS:
            message = self.query_one(f"#message-{name}", Static)
            error = check.errors.get(name)
            # An empty field's problem ("required") is said calmly; typed mistakes in red.
            shout = error is not None and bool(str(values.get(name, "")).strip())
            message.set_class(shout, "-error")
            message.set_class(error is not None and not shout, "-needed")
            # As text: an error quotes what was typed, a file's content or a stack's answer.
            message.update(Text(terminal_safe(error or check.hints.get(name, ""))))
            self.query_one(f"#input-{name}", Input).set_class(shout, "-invalid")
        switch_error = check.errors.get("family_wise", "")
        switch_message = self.query_one("#message-family_wise", Static)
        switch_message.set_class(bool(switch_error), "-error")
        switch_message.update(Text(switch_error))
        version_input = self.query_one("#input-version", Input)
        version_input.suggester = (
            SuggestFromList([str(v) for v in check.versions]) if check.versions else None
        )
        self._title_cost()
        self.valid = not check.errors
        problems = len(check.errors)
        self.query_one("#configure-problems", Static).update(
            "" if not problems else f"{problems} field{'s' if problems > 1 else ''} to fix"
        )

    @on(Collapsible.Toggled, "#cost")
    def _title_cost(self) -> None:
        """Folded, the cost group's title says what its fields hold; open, they say it."""
        cost = self.query_one("#cost", Collapsible)
        cost.title = f"Cost {self.check.cost}" if cost.collapsed else "Cost"

    def watch_valid(self, valid: bool) -> None:
        self.query_one("#run", Button).disabled = not valid

    def _merge_stack_answer(self, values: FormValues, check: FormCheck) -> None:
        """Add what the stack said about the agent; ask it (after a pause) when not known yet."""
        stack = str(values.get("stack") or "").strip()
        agent = str(values.get("agent") or "").strip()
        if not stack or not agent or "stack" in check.errors or "key" in check.errors:
            return
        ask = (stack, self.key(), agent)
        answer = self._stack_answers.get(ask)
        if answer is None:
            check.hints["agent"] = "checking on the stack…"
            if self._stack_timer is not None:
                self._stack_timer.stop()
            self._stack_timer = self.set_timer(STACK_CHECK_DELAY, lambda: self._ask_stack(*ask))
            return
        if isinstance(answer, str):
            check.errors["agent"] = answer
            return
        check.versions = answer
        listed = ", ".join(str(v) for v in answer)
        check.hints["agent"] = "found on the stack"
        version_text = str(values.get("version") or "").strip()
        if version_text.isdigit() and int(version_text) not in answer:
            check.errors["version"] = f"not on the stack (versions: {listed})"
        elif "version" not in check.errors:
            check.hints["version"] = f"versions on the stack: {listed}"

    @work(exclusive=True, group="stack-check", exit_on_error=False)
    async def _ask_stack(self, stack: str, key: str | None, agent: str) -> None:
        """Ask the stack for the agent's versions; the answer is shown beside the fields."""
        answer = await stack_versions(stack, key, agent)
        self._stack_answers[(stack, key, agent)] = answer
        self.revalidate()

    # -- actions -----------------------------------------------------------------------

    @on(Input.Submitted)
    def _submitted(self) -> None:
        self.action_run()

    @on(Button.Pressed, "#run")
    def action_run(self) -> None:
        """Start the evaluation with the form's settings (saved for next time, key excepted)."""
        self.revalidate()
        if not self.valid or self.check.settings is None:
            first = next(iter(self.check.errors), None)
            if first in COST_FIELDS:
                self.query_one("#cost", Collapsible).collapsed = False
            if first is not None:  # an Input, or the Whole suite checkbox
                self.query_one(f"#input-{first}").focus()
            self.notify("Fix the fields marked in red first.", severity="warning")
            return
        self.post_message(
            RunRequested(
                self.check.settings,
                self.key(),
                remember=self.values(),
                baseline=self.check.baseline,
                targets=tuple(self.check.targets),
            )
        )

    @on(Button.Pressed, "#demo")
    def action_demo(self) -> None:
        self.post_message(DemoRequested())

    @on(Button.Pressed, "#history")
    def _history(self) -> None:
        self.post_message(HistoryRequested())
