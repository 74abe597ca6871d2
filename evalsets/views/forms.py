"""Forms for the evalset pages: set metadata, columns, one row, commit, import and mapping."""

from __future__ import annotations

import json

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from assay.vocabulary import ContentType, Verdict, column_label

from ..items.content import CONVERSATION, IMAGE, MEDIA_KEYS, MULTIPART, TEXT, content_cell
from ..items.conversation import MESSAGES
from ..items.problems import problem_text
from ..items.rows import SPECIAL_TARGETS, column_name_problem

TYPE_CHOICES = ContentType.choices  # the codes, labelled in the page's language
NEW, IGNORE = "__new__", "__ignore__"


def row_field_choice(name: str) -> str:
    """tags, human_verdict, label: the row's own fields, not columns."""
    return _("%(name)s (row field)") % {"name": name}


def split_tags(text: str) -> list[str]:
    return [t.strip() for t in (text or "").split(",") if t.strip()]


class EvalSetForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=120)
    description = forms.CharField(
        label=_("Description"), required=False, widget=forms.Textarea(attrs={"rows": 2})
    )
    tags = forms.CharField(label=_("Tags"), required=False, help_text=_("Comma-separated"))

    def clean_tags(self) -> list[str]:
        return split_tags(self.cleaned_data["tags"])


class ColumnForm(forms.Form):
    old_name = forms.CharField(widget=forms.HiddenInput, required=False)
    name = forms.CharField(label=_("Name"), max_length=64, required=False)
    content_type = forms.ChoiceField(label=_("Type"), choices=TYPE_CHOICES, initial=TEXT)
    description = forms.CharField(label=_("Description"), required=False)
    required = forms.BooleanField(label=_("Required"), required=False)
    remove = forms.BooleanField(label=_("Remove"), required=False)

    def column(self) -> dict | None:
        """The column this row of the editor asks for, or None (removed or left blank)."""
        data = self.cleaned_data
        if data.get("remove") or not data.get("name"):
            return None
        column = {k: data[k] for k in ("name", "content_type", "description", "required")}
        if data.get("old_name") and data["old_name"] != data["name"]:
            column["old_name"] = data["old_name"]
        return column


ColumnFormSet = forms.formset_factory(ColumnForm, extra=2, max_num=50)


def column_initial(columns: list[dict]) -> list[dict]:
    return [{**c, "old_name": c["name"]} for c in columns]


class RowForm(forms.Form):
    """One draft row: a field per column (media: a URL/path or a file), then the row fields."""

    tags = forms.CharField(label=_("Tags"), required=False, help_text=_("Comma-separated"))
    human_verdict = forms.ChoiceField(
        label=_("Human verdict"), required=False, choices=[("", "—"), *Verdict.choices]
    )
    label = forms.CharField(
        label=_("Label"), required=False, widget=forms.Textarea(attrs={"rows": 1})
    )

    def __init__(self, *args, columns: list[dict], **kwargs):
        super().__init__(*args, **kwargs)
        self.columns = columns
        fields = {}
        for column in columns:
            fields.update(_column_fields(column))
        self.fields = {**fields, **self.fields}

    def clean_tags(self) -> list[str]:
        return split_tags(self.cleaned_data["tags"])

    def data_values(self) -> dict:
        """{column: value} for the service: text, a media reference, or a JSON object."""
        values = {}
        for column in self.columns:
            value = self.cleaned_data.get(f"col_{column['name']}")
            if column["content_type"] == MULTIPART and value:
                try:
                    value = json.loads(value)
                except json.JSONDecodeError as exc:
                    problem = gettext("Not valid JSON: %(error)s.") % {"error": exc.msg}
                    self.add_error(f"col_{column['name']}", problem)
                    continue
            if value not in (None, ""):
                values[column["name"]] = value
        return values

    def uploads(self) -> dict:
        return {
            c["name"]: self.cleaned_data[f"file_{c['name']}"]
            for c in self.columns
            if self.cleaned_data.get(f"file_{c['name']}")
        }

    @staticmethod
    def initial_for(item, columns: list[dict]) -> dict:
        initial = {
            "tags": ", ".join(item.tags),
            "human_verdict": item.human_verdict,
            "label": item.label,
        }
        for column in columns:
            content = item.data.get(column["name"])
            if content:
                initial[f"col_{column['name']}"] = _editable(content)
        return initial


def _editable(content: dict) -> str:
    """A cell as its field shows it; a conversation's messages one per line, to be edited."""
    if content.get("content_type") != CONVERSATION:
        return content_cell(content)
    return json.dumps(content[MESSAGES], ensure_ascii=False, indent=1)


def _column_fields(column: dict) -> dict:
    name, kind = column["name"], column["content_type"]
    help_text = column.get("description", "")
    if kind == TEXT:
        widget = forms.Textarea(attrs={"rows": 3})
        return {
            f"col_{name}": forms.CharField(
                label=name, required=False, widget=widget, help_text=help_text, strip=False
            )
        }
    if kind in MEDIA_KEYS:
        accept = "image/*" if kind == IMAGE else "audio/*"
        return {
            f"col_{name}": forms.CharField(
                label=f"{name} ({kind})",
                required=False,
                help_text=_("An http(s) URL, or upload a file below."),
            ),
            f"file_{name}": forms.FileField(
                label=_("Upload"),
                required=False,
                widget=forms.ClearableFileInput(attrs={"accept": accept}),
            ),
        }
    if kind == CONVERSATION:
        return {f"col_{name}": _conversation_field(name, help_text)}
    return {
        f"col_{name}": forms.CharField(
            label=f"{name} (MultiPart JSON)",
            required=False,
            widget=forms.Textarea(attrs={"rows": 3, "class": "code"}),
            help_text=help_text,
        )
    }


def _conversation_field(name: str, description: str) -> forms.CharField:
    """A JSON textarea for a Conversation column: its array of messages (the service checks
    it and names the message at fault)."""
    hint = _(
        'A JSON array of messages: [{"role": "user", "content": "…"}, {"role": "assistant", '
        '"content": "…"}]; roles system, user, assistant, tool.'
    )
    return forms.CharField(
        label=_("%(name)s (Conversation JSON)") % {"name": name},
        required=False,
        widget=forms.Textarea(attrs={"rows": 8, "class": "code"}),
        help_text=f"{description} {hint}".strip() if description else hint,
        strip=False,
    )


class CommitForm(forms.Form):
    version = forms.CharField(label=_("Version"), max_length=64)
    note = forms.CharField(
        label=_("Note"), required=False, widget=forms.Textarea(attrs={"rows": 3})
    )


class ImportUploadForm(forms.Form):
    file = forms.FileField(label=_("CSV or JSONL file"))
    format = forms.ChoiceField(
        label=_("Format"),
        required=False,
        choices=[("", _("From the file name")), ("csv", "CSV"), ("jsonl", "JSONL")],
    )
    encoding = forms.ChoiceField(
        label=_("Encoding"),
        required=False,
        initial="utf-8",
        choices=[
            ("utf-8", "UTF-8"),
            ("utf-8-sig", _("UTF-8 with BOM")),
            ("gb18030", _("GB18030 (中文 Windows)")),  # how Chinese Windows users know it
            ("latin-1", "Latin-1"),
        ],
    )

    def offer_encoding(self, guess_of) -> str:
        """After a file refused for its encoding, choose the one it seems to be in (the
        browser forgets the file, so the next try is: choose it again, upload) and return that
        choice's label; '' when the file was refused for another reason."""
        # the service's error on `file` took it out of cleaned_data: read the upload itself
        upload, chosen = self.files.get("file"), self.cleaned_data.get("encoding")
        guess = guess_of(upload=upload, encoding=chosen or "utf-8") if upload else ""
        if not guess:
            return ""
        self.data = self.data.copy()
        self.data["encoding"] = guess
        return dict(self.fields["encoding"].choices)[guess]


class MappingForm(forms.Form):
    """For each file field: which column (or row field) it fills, or a new column (named in its
    box, prefilled with a suggestion: `importing.naming`), or nothing."""

    skip_bad_rows = forms.BooleanField(
        label=_("Skip bad rows (import the good ones and report the rest)"), required=False
    )
    replace = forms.BooleanField(
        label=_("Replace the draft's rows instead of adding to them"), required=False
    )

    def __init__(
        self,
        *args,
        fields: list[str],
        columns: list[dict],
        proposed: dict,
        new_columns: list[dict],
        names: dict[str, str],
        **kwargs,
    ):
        super().__init__(*args, **kwargs)
        self.file_fields = fields
        choices = [(NEW, _("New column")), *mapping_targets(columns), (IGNORE, _("Ignore"))]
        new_by_name = {c["name"]: c for c in new_columns}
        for index, field in enumerate(fields):
            target = proposed.get(field)
            new = new_by_name.get(target)
            # a field that matches nothing is ignored unless chosen otherwise: defaulting it to a
            # new column quietly added empty rows to a set whose columns had other names
            initial = NEW if new else (target or IGNORE)
            self.fields[f"map_{index}"] = forms.ChoiceField(
                label=field, choices=choices, initial=initial, required=True
            )
            self.fields[f"name_{index}"] = forms.CharField(
                label=_("Name of the new column"),
                required=False,
                max_length=64,
                initial=new["name"] if new else names.get(field, ""),
            )
            self.fields[f"type_{index}"] = forms.ChoiceField(
                label=_("Type of the new column"),
                choices=TYPE_CHOICES,
                initial=new["content_type"] if new else TEXT,
            )

    def rows(self):
        """(field, target, name, type) bound fields per file field, for the template."""
        return [
            (f, self[f"map_{i}"], self[f"name_{i}"], self[f"type_{i}"])
            for i, f in enumerate(self.file_fields)
        ]

    def clean(self):
        """Each new column needs a valid name of its own (the problem lands on its box)."""
        data, seen = super().clean(), set()
        for index, _field in enumerate(self.file_fields):
            if data.get(f"map_{index}") != NEW:
                continue
            name = (data.get(f"name_{index}") or "").strip()
            problem = column_name_problem(name) if name else _("Give the new column a name.")
            if problem is None and name in seen:
                problem = _("Two new columns are called %(name)r.") % {"name": name}
            if problem is not None:
                self.add_error(f"name_{index}", problem_text(problem))
            seen.add(name)
        return data

    def mapping(self) -> tuple[dict, list[dict]]:
        mapping, new_columns = {}, []
        for index, field in enumerate(self.file_fields):
            target = self.cleaned_data[f"map_{index}"]
            if target == NEW:
                name = self.cleaned_data[f"name_{index}"].strip()
                mapping[field] = name
                column = {"name": name, "content_type": self.cleaned_data[f"type_{index}"]}
                if name != field:
                    column["description"] = field  # the header as the file said it
                new_columns.append(column)
            else:
                mapping[field] = "" if target == IGNORE else target
        return mapping, new_columns


def mapping_targets(columns: list[dict]) -> list[tuple[str, str]]:
    """The set's columns (with their type) and the row fields, as a file field's targets."""
    targets = [(c["name"], column_label(c)) for c in columns]
    targets += [
        (target, _("%(name)s (row field)") % {"name": label})
        for target, label in SPECIAL_TARGETS.items()
    ]
    return targets
