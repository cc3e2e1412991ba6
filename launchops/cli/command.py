"""One shape for every command that works on a profile: the options they share
(`--profile`, `--profiles`, `--base-url`, `--json`; `--yes` where it sends, `--no-prefect`
where it has a flow, `--insecure-server` where it talks to a Prefect server) declared
once, and handed to the command as a `Call`: the profile loaded when first asked for,
the work run through the command's Prefect flow or the library, in the embedded sandbox
when the profile wants one, and any launchops error made one line.

    @agents_app.command("mint")
    @shared(sends=True, flow=True)
    def mint(call: Call, file: Path) -> None:
        result = call.drive("agents:mint_agent_flow", lambda: mint_agent(file, ...), path=str(file))

Only typer is imported at module level: `launchops --help` stays fast.
"""

from __future__ import annotations

import functools
import importlib
import inspect
from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from launchops.cli.common import (
    BaseUrlOpt,
    InsecureServer,
    JsonOpt,
    NetworkOpt,
    NoPrefect,
    ProfileOpt,
    ProfilesFile,
    Yes,
    drive,
    embedded_sandbox,
    print_json,
    refuse_sending,
    run,
    settings_for,
    user_errors,
)

if TYPE_CHECKING:
    from launchops.config.profiles import Profile

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])

_KW = inspect.Parameter.POSITIONAL_OR_KEYWORD
_OPTIONS = {
    "profile": inspect.Parameter("profile", _KW, default="sandbox", annotation=ProfileOpt),
    "profiles": inspect.Parameter("profiles", _KW, default=None, annotation=ProfilesFile),
    "base_url": inspect.Parameter("base_url", _KW, default=None, annotation=BaseUrlOpt),
    "yes": inspect.Parameter("yes", _KW, default=False, annotation=Yes),
    "no_prefect": inspect.Parameter("no_prefect", _KW, default=False, annotation=NoPrefect),
    "as_json": inspect.Parameter("as_json", _KW, default=False, annotation=JsonOpt),
    "insecure_server": inspect.Parameter(
        "insecure_server", _KW, default=False, annotation=InsecureServer
    ),
    "network": inspect.Parameter("network", _KW, default=None, annotation=NetworkOpt),
}


class Call:
    """One command's shared options, and what it does with them."""

    def __init__(
        self,
        *,
        profile: str = "sandbox",
        profiles: Path | None = None,
        base_url: str | None = None,
        yes: bool = False,
        no_prefect: bool = False,
        as_json: bool = False,
        insecure_server: bool = False,
        network: str | None = None,
        sends: bool = False,
    ) -> None:
        self.profile, self.profiles, self.base_url = profile, profiles, base_url
        self.network = network  # --network, where a command reads another network
        self.yes, self.prefect, self.as_json = yes, not no_prefect, as_json
        self.insecure_server, self.sends = insecure_server, sends
        self._settings: Profile | None = None

    @property
    def settings(self) -> Profile:
        """The profile, `--base-url` over it; refused without `--yes` where it must send."""
        return self.load()

    def load(self, *, sending: bool | None = None) -> Profile:
        """The profile, loaded once (`sending`: whether this run sends, when it depends on
        another option, e.g. `--dry-run`)."""
        if self._settings is None:
            sends = self.sends if sending is None else sending
            self._settings = settings_for(
                self.profile, self.profiles, self.base_url, sending=sends, yes=self.yes
            )
        return self._settings

    def refuse_sending(self, guard: bool = True) -> None:
        """The refusals of a run that sends (`--yes`; with `guard`, the network guard), for
        a command that loaded its profile with `load(sending=False)` to check its input
        before any network call."""
        refuse_sending(self.settings, yes=self.yes, guard=guard)

    @property
    def service_url(self) -> str | None:
        """The service the command talks to, once the profile is loaded (for error hints)."""
        return self._settings.base_url if self._settings is not None else self.base_url

    @property
    def profiles_file(self) -> str | None:
        return str(self.profiles) if self.profiles else None

    def drive(
        self,
        flow: str,
        plain: Callable[[], Awaitable[T]],
        *,
        listen: Callable[[], None] | None = None,
        live: AbstractContextManager[Any] | None = None,
        sandbox: bool = True,
        progress: Callable[[str, str, str], None] | None = None,
        again_if_lost: bool = False,
        **params: Any,
    ) -> T:
        """The command's work: the flow `flow` (`module:name` in launchops.flows) with
        `params`, this profile and its file; or, with `--no-prefect`, `plain` (the
        library). `listen` hooks the flow's progress (it needs Prefect's modules, so it
        runs only on that path); `live` is a display started once the sandbox is up, and
        `progress` its progress (it shows Prefect starting). `again_if_lost`: a flow run
        whose result Prefect's server lost (`FlowResultLost`) is answered by `plain`, for
        work that run again reports from the journal what the run did (a launch)."""

        async def through_prefect() -> T:
            from launchops.errors import FlowResultLost
            from launchops.flows.outcome import result_of

            module, _, name = flow.partition(":")
            work = getattr(importlib.import_module(f"launchops.flows.{module}"), name)
            if listen is not None:
                listen()
            where = {"profile": self.settings.name, "profiles_file": self.profiles_file}
            where["base_url"] = self.base_url
            state = await work(**params, **where, return_state=True)
            try:
                return await result_of(state)
            except FlowResultLost:
                if not again_if_lost:
                    raise
                return await plain()  # nothing is done twice: the journal answers

        with embedded_sandbox(self.settings) if sandbox else nullcontext(), live or nullcontext():
            return drive(
                prefect=self.prefect,
                flow=through_prefect,
                plain=plain,
                progress=progress,
                folder=self.settings.profile_dir if self.prefect else None,
            )

    def run(self, work: Callable[[], Awaitable[T]]) -> T:
        """The library's `work`, in this process, in the embedded sandbox if it wants one:
        not when `--base-url` names the service to ask (a read asks that one, whatever
        listens there)."""
        with embedded_sandbox(self.settings) if self.base_url is None else nullcontext():
            return run(work())

    def show(self, data: Any, printer: Callable[[], None]) -> None:
        """`data` as JSON with `--json`, else what `printer` prints."""
        if self.as_json:
            print_json(data)
        else:
            printer()


def shared(
    *,
    sends: bool = False,
    flow: bool = False,
    prefect_server: bool = False,
    network: bool = False,
) -> Callable[[F], F]:
    """Give the command the shared options: its first parameter becomes a `Call` holding
    them, the rest stay its own (typer reads the signature this returns). `sends`: it sends
    transactions (`--yes`); `flow`: it has a Prefect flow (`--no-prefect`);
    `prefect_server`: it talks to a Prefect server (`--insecure-server`); `network`: it
    reads the service on a network the profile's or another (`--network`). A command with
    a flow runs launches: SIGINT and SIGTERM stop it as `launchops.cli.stops` says."""
    names = ["profile", "profiles", "base_url"] + (["network"] if network else [])
    names += ["yes"] if sends else []
    names += ["no_prefect"] if flow else []
    names += ["as_json"] + (["insecure_server"] if prefect_server else [])

    def decorate(command: F) -> F:
        own = list(inspect.signature(command, eval_str=True).parameters.values())[1:]

        @functools.wraps(command)
        def wrapper(**kwargs: Any) -> Any:
            call = Call(sends=sends, **{name: kwargs.pop(name) for name in names})
            with user_errors(lambda: call.service_url), _stoppable(flow):
                return command(call, **kwargs)

        parameters = [*own, *(_OPTIONS[name] for name in names)]
        wrapper.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
        wrapper.__annotations__ = {p.name: p.annotation for p in parameters}
        return wrapper  # type: ignore[return-value]

    return decorate


def _stoppable(runs: bool) -> AbstractContextManager[None]:
    """The stop on SIGINT and SIGTERM of a command that runs launches (`runs`)."""
    if not runs:
        return nullcontext()
    from launchops.cli.stops import stoppable

    return stoppable()


__all__ = ["Call", "shared"]
