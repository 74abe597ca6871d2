"""Relative times ("5 minutes ago") read "just now" under a minute, never "0 minutes ago", and
Chinese ones have no space before 前 ("14 分钟前", not "14 分钟 前"), on every list that shows
them (one filter, `ago`)."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone, translation

from assay.templatetags.assay_tags import ago
from tests.support.factories import make_code_version, make_evalset_version, qa_rows

pytestmark = pytest.mark.django_db


def test_under_a_minute_is_just_now():
    with translation.override("en"):
        assert ago(timezone.now()) == translation.gettext("just now") == "just now"
        assert ago(timezone.now() - timedelta(seconds=59)) == "just now"
        assert ago(timezone.now() - timedelta(minutes=5)) == "5\xa0minutes ago"


def test_chinese_has_no_zero_minutes_and_no_space_before_qian():
    with translation.override("zh-hans"):
        now = ago(timezone.now())
        assert now == translation.gettext("just now") == "刚刚"
        assert "0" not in now and "分钟" not in now
        later = ago(timezone.now() - timedelta(minutes=14))
        assert later.endswith("分钟前") and not re.search(r"\s前", later), later


def test_the_lists_say_just_now(web, workspace, user):
    make_code_version(workspace=workspace, user=user, name="Fresh")
    make_evalset_version(workspace=workspace, user=user, rows=qa_rows(2), name="Fresh set")
    for url in ("/w/acme/evaluators/", "/w/acme/evalsets/"):
        page = web.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
        assert "just now" in page, url
        assert "0\xa0minutes" not in page and "minutes ago" not in page, url
        zh = web.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
        assert 'lang="zh-hans"' in zh and "刚刚" in zh, url
        assert not re.search(r"0\s分钟", zh) and not re.search(r"分钟\s+前", zh), url
