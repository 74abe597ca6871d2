"""Django's makemessages, also extracting the aliases our modules import gettext under
(`gettext as _t`, `gettext_lazy as _lazy`), and `N_`, the no-op marker of the modules without
Django (`evalsets/items/`: cells, content, conversation, rows), so every marked string reaches
the catalogue."""

from django.core.management.commands import makemessages


class Command(makemessages.Command):
    xgettext_options = [*makemessages.Command.xgettext_options, "--keyword=_t", "--keyword=_lazy"]
    xgettext_options += ["--keyword=N_", "--keyword=Nn_:1,2"]
