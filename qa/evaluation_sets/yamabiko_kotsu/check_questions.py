#!/usr/bin/env python3
"""やまびこ交通株式会社 社内文書Q&Aポータル評価セットの検証スクリプト。

標準ライブラリのみを使う。使い方:

    python3 check_questions.py

すべての検査に合格すると終了コード 0、一つでも違反があると 1 を返す。
照合規則: NFKC 正規化 → 小文字化 → すべての空白を除去 したうえで部分文字列として比較する。
"""

from __future__ import annotations

import ast
import json
import re
import sys
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parent
DOCS_DIR = ROOT / "docs"
DOC_COUNT = 15
MIN_TOTAL_BYTES = 60_000
MAX_TOTAL_BYTES = 90_000
NEARLY_EMPTY_BYTES = 500
MIN_NAME_CHARS = 15
RESTRICTED_MARK = "管理職限定"
RESTRICTED_GROUP = "managers"
ALLOWED_EXT = {".md", ".txt", ".html"}
QUESTION_COUNT = 60
HALF = QUESTION_COUNT // 2
SPLITS = ("dev", "held_out")
FIELDS = ("qid", "question", "gold_doc_id", "answers", "kind", "lang", "expect", "split")
KIND_COUNTS = {
    "paraphrase": 10,
    "lexical": 4,
    "number": 4,
    "kana": 2,
    "english": 4,
    "table": 1,
    "off_topic": 3,
    "too_short": 1,
    "restricted": 1,
}
ANSWERABLE = {"paraphrase", "lexical", "number", "kana", "english", "table"}
EXPECT_BY_KIND = {
    **{kind: "answer" for kind in ANSWERABLE},
    "off_topic": "not_found",
    "too_short": "clarify",
    "restricted": "not_found",
}
ANSWER_MIN, ANSWER_MAX = 3, 20
MARKUP_CHARS = set("|*#<>`[]")
MAX_COPY_RUN = 15  # 質問と正解文書の最長共通部分（文のコピー防止）
MAX_PARAPHRASE_RUN = 8  # 言い換え質問が文書の表現をそのまま使いすぎないための上限
TOO_SHORT_MAX = 8
MAX_FUNCTION_LINES = 60
KANA_RE = re.compile(r"^[\u3041-\u3096\u309d\u309e\u30fc、。？！ 　]+$")
PIPE_ROW_RE = re.compile(r"^\|.*\|\s*$")
PIPE_SEP_RE = re.compile(r"^\|\s*:?-{3,}")
URL_RE = re.compile(r"https?://\S+")


def norm(text: str) -> str:
    """NFKC 正規化し、小文字にし、すべての空白を取り除く。"""
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text).lower())


def longest_common_run(needle: str, haystack: str) -> int:
    """needle の部分文字列のうち haystack に含まれる最長のものの長さを返す。"""
    best = 0
    for start in range(len(needle)):
        length = best + 1
        while start + length <= len(needle) and needle[start : start + length] in haystack:
            best = length
            length += 1
    return best


def load_docs(errors: list[str]) -> dict[str, bytes]:
    """docs/ のファイルをバイト列で読み込み、件数と種類を確認する。"""
    if not DOCS_DIR.is_dir():
        errors.append("docs/ フォルダがありません")
        return {}
    raw: dict[str, bytes] = {}
    for path in sorted(DOCS_DIR.iterdir()):
        if not path.is_file():
            errors.append(f"docs/ にファイル以外があります: {path.name}")
            continue
        raw[path.name] = path.read_bytes()
        if path.suffix not in ALLOWED_EXT:
            errors.append(f"拡張子が .md/.txt/.html ではありません: {path.name}")
        if len(path.stem) < MIN_NAME_CHARS and len(raw[path.name]) >= NEARLY_EMPTY_BYTES:
            errors.append(f"ファイル名が短すぎます（{MIN_NAME_CHARS}文字以上）: {path.name}")
    if len(raw) != DOC_COUNT:
        errors.append(f"docs/ のファイル数が {len(raw)} です（{DOC_COUNT} 必要）")
    return raw


def decode_docs(raw: dict[str, bytes], errors: list[str]) -> dict[str, str]:
    """UTF-8（BOM なし）として復号できるか確認し、テキストを返す。"""
    texts: dict[str, str] = {}
    for name, data in raw.items():
        if data.startswith(b"\xef\xbb\xbf"):
            errors.append(f"BOM 付きです: {name}")
        try:
            texts[name] = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            errors.append(f"UTF-8 ではありません: {name} ({exc})")
    return texts


def check_sizes(raw: dict[str, bytes], texts: dict[str, str], errors: list[str]) -> None:
    """合計バイト数と、ほぼ空の文書（題名と外部リンク1つ）を確認する。"""
    total = sum(len(data) for data in raw.values())
    if not MIN_TOTAL_BYTES <= total <= MAX_TOTAL_BYTES:
        errors.append(f"docs/ の合計 {total} バイトが {MIN_TOTAL_BYTES}〜{MAX_TOTAL_BYTES} の範囲外です")
    tiny = [name for name, data in raw.items() if len(data) < NEARLY_EMPTY_BYTES]
    if not tiny:
        errors.append(f"{NEARLY_EMPTY_BYTES} バイト未満のほぼ空の文書がありません")
    for name in tiny:
        text = texts.get(name, "")
        lines = [line for line in text.splitlines() if line.strip()]
        if len(URL_RE.findall(text)) != 1 or len(lines) != 2:
            errors.append(f"ほぼ空の文書は題名1行と外部リンク1つだけにしてください: {name}")
    for name, data in raw.items():
        if not data.strip():
            errors.append(f"空のファイルです: {name}")


def has_pipe_table(text: str) -> bool:
    """見出し行と区切り行を持つパイプ表が含まれるか。"""
    lines = text.splitlines()
    for first, second in zip(lines, lines[1:]):
        if PIPE_ROW_RE.match(first) and PIPE_SEP_RE.match(second):
            return True
    return False


def check_rule_formats(texts: dict[str, str], errors: list[str]) -> None:
    """.md の条文形式、.txt の通達形式（記・以上）、パイプ表の数を確認する。"""
    md_rules = [n for n, t in texts.items() if n.endswith(".md") and re.search(r"第\d+条", t) and "（１）" in t]
    if len(md_rules) < 5:
        errors.append(f"第N条と（１）を含む .md 規程が {len(md_rules)} 件です（5件以上必要）")
    circulars = [n for n in texts if n.endswith(".txt")]
    if not circulars:
        errors.append(".txt の通達がありません")
    for name in circulars:
        lines = [line.strip() for line in texts[name].splitlines() if line.strip()]
        if "記" not in lines or not lines or lines[-1] != "以上":
            errors.append(f".txt 通達に「記」の行または末尾の「以上」がありません: {name}")
    tables = [n for n, t in texts.items() if has_pipe_table(t)]
    if len(tables) < 3:
        errors.append(f"パイプ表を含む文書が {len(tables)} 件です（3件以上必要）")


def check_html_and_faq(texts: dict[str, str], errors: list[str]) -> None:
    """HTML の連絡先ページ（<table> とセル内 <br>）と Q:/A: 形式の FAQ を確認する。"""
    html = [n for n in texts if n.endswith(".html")]
    if len(html) != 1:
        errors.append(f".html の文書が {len(html)} 件です（1件必要）")
    cell_br = re.compile(r"<td>[^<]*(?:<(?!/td)[^>]*>[^<]*)*<br\s*/?>", re.IGNORECASE)
    tables = [n for n, t in texts.items() if "<table" in t.lower()]
    if not tables:
        errors.append("HTML の <table> を含む文書がありません")
    if not any(cell_br.search(texts[n]) for n in tables):
        errors.append("<table> のセル内に <br> がありません")
    faq_ok = False
    for text in texts.values():
        q_count = len(re.findall(r"^Q: ", text, re.MULTILINE))
        a_count = len(re.findall(r"^A: ", text, re.MULTILINE))
        if q_count >= 5 and q_count == a_count:
            faq_ok = True
    if not faq_ok:
        errors.append("Q:/A: 形式の FAQ（5問以上、Q と A が同数）がありません")


def find_restricted(texts: dict[str, str], errors: list[str]) -> str:
    """ファイル名に「管理職限定」を含む文書がちょうど1件あることを確認する。"""
    names = [name for name in texts if RESTRICTED_MARK in name]
    if len(names) != 1:
        errors.append(f"「{RESTRICTED_MARK}」を含むファイル名が {len(names)} 件です（1件必要）")
        return names[0] if names else ""
    if len(texts[names[0]].encode("utf-8")) < NEARLY_EMPTY_BYTES:
        errors.append("管理職限定文書の中身が少なすぎます")
    return names[0]


def check_groups(restricted: str, errors: list[str]) -> None:
    """groups.json が管理職限定文書だけを managers に割り当てていることを確認する。"""
    path = ROOT / "groups.json"
    try:
        groups = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        errors.append(f"groups.json を読めません: {exc}")
        return
    if groups != {restricted: [RESTRICTED_GROUP]}:
        errors.append(f'groups.json は {{"{restricted}": ["{RESTRICTED_GROUP}"]}} にしてください')


def load_questions(errors: list[str]) -> list[dict]:
    """questions.jsonl を読み込み、行数と JSON 形式を確認する。"""
    path = ROOT / "questions.jsonl"
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        errors.append(f"questions.jsonl を読めません: {exc}")
        return []
    if len(lines) != QUESTION_COUNT or any(not line.strip() for line in lines):
        errors.append(f"questions.jsonl は空行なしで {QUESTION_COUNT} 行にしてください（{len(lines)} 行）")
    questions: list[dict] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            errors.append(f"{number} 行目が JSON ではありません: {exc}")
            continue
        if not isinstance(item, dict):
            errors.append(f"{number} 行目がオブジェクトではありません")
            continue
        questions.append(item)
    return questions


def check_fields(questions: list[dict], errors: list[str]) -> None:
    """フィールド名・型・qid の連番・split の並びを確認する。"""
    for index, item in enumerate(questions):
        qid = item.get("qid", f"#{index + 1}")
        if tuple(sorted(item)) != tuple(sorted(FIELDS)):
            errors.append(f"{qid}: フィールドは {FIELDS} のちょうど8つにしてください")
            continue
        for key in FIELDS:
            if key != "answers" and not isinstance(item[key], str):
                errors.append(f"{qid}: {key} は文字列にしてください")
        answers = item["answers"]
        if not isinstance(answers, list) or not all(isinstance(a, str) for a in answers):
            errors.append(f"{qid}: answers は文字列のリストにしてください")
        expected_qid = f"yb-{index + 1:03d}"
        if item["qid"] != expected_qid:
            errors.append(f"{qid}: qid は {expected_qid} であるべきです")
        expected_split = SPLITS[0] if index < HALF else SPLITS[1]
        if item["split"] != expected_split:
            errors.append(f"{qid}: split は {expected_split} であるべきです")
        if not item["question"].strip():
            errors.append(f"{qid}: question が空です")


def check_kind_counts(questions: list[dict], errors: list[str]) -> None:
    """前半（dev）と後半（held_out）それぞれの kind の内訳を確認する。"""
    for split in SPLITS:
        counts: dict[str, int] = {}
        for item in questions:
            if item.get("split") == split:
                kind = str(item.get("kind"))
                counts[kind] = counts.get(kind, 0) + 1
        if counts != KIND_COUNTS:
            errors.append(f"{split} の kind 内訳 {counts} が規定 {KIND_COUNTS} と異なります")


def check_expect_lang(questions: list[dict], errors: list[str]) -> None:
    """kind ごとの expect と lang（english のみ en）を確認する。"""
    for item in questions:
        qid, kind = item.get("qid"), item.get("kind")
        if kind not in EXPECT_BY_KIND:
            errors.append(f"{qid}: 不明な kind {kind}")
            continue
        if item.get("expect") != EXPECT_BY_KIND[kind]:
            errors.append(f"{qid}: kind={kind} の expect は {EXPECT_BY_KIND[kind]} です")
        expected_lang = "en" if kind == "english" else "ja"
        if item.get("lang") != expected_lang:
            errors.append(f"{qid}: kind={kind} の lang は {expected_lang} です")


def check_gold_rules(questions: list[dict], texts: dict[str, str], restricted: str, errors: list[str]) -> None:
    """kind ごとの gold_doc_id と answers の規則を確認する。"""
    for item in questions:
        qid, kind = item.get("qid"), item.get("kind")
        gold, answers = item.get("gold_doc_id"), item.get("answers")
        if kind in ANSWERABLE:
            if gold not in texts:
                errors.append(f"{qid}: gold_doc_id が docs/ にありません: {gold}")
            elif gold == restricted:
                errors.append(f"{qid}: 回答可能な質問の正解に管理職限定文書は使えません")
            if not isinstance(answers, list) or not 1 <= len(answers) <= 3:
                errors.append(f"{qid}: answers は1〜3個にしてください")
        elif kind in ("off_topic", "too_short"):
            if gold != "" or answers != []:
                errors.append(f'{qid}: {kind} は gold_doc_id を ""、answers を [] にしてください')
        elif kind == "restricted":
            if gold != restricted or answers != []:
                errors.append(f"{qid}: restricted は gold_doc_id を管理職限定文書、answers を [] にしてください")


def check_one_answer(qid: str, answer: str, question: str, gold: str, texts: dict[str, str], errors: list[str]) -> None:
    """回答キー1つについて、長さ・記号・正解文書での出現・他文書での非出現を確認する。"""
    if not ANSWER_MIN <= len(answer) <= ANSWER_MAX:
        errors.append(f"{qid}: 回答キー「{answer}」は{ANSWER_MIN}〜{ANSWER_MAX}文字にしてください")
    if MARKUP_CHARS & set(answer) or answer != answer.strip():
        errors.append(f"{qid}: 回答キー「{answer}」に記号（マークアップ）または前後の空白があります")
    key = norm(answer)
    if key in norm(question):
        errors.append(f"{qid}: 回答キー「{answer}」が質問文に含まれています")
    if gold in texts and key not in norm(texts[gold]):
        errors.append(f"{qid}: 回答キー「{answer}」が正解文書に見つかりません")
    for name, text in texts.items():
        if name != gold and key in norm(text):
            errors.append(f"{qid}: 回答キー「{answer}」が別の文書にもあります: {name}")


def check_answers(questions: list[dict], texts: dict[str, str], errors: list[str]) -> None:
    """回答可能な質問のすべての回答キーを確認する。"""
    for item in questions:
        if item.get("kind") not in ANSWERABLE or not isinstance(item.get("answers"), list):
            continue
        seen: set[str] = set()
        for answer in item["answers"]:
            if not isinstance(answer, str):
                continue
            if norm(answer) in seen:
                errors.append(f"{item['qid']}: 回答キー「{answer}」が重複しています")
            seen.add(norm(answer))
            check_one_answer(str(item["qid"]), answer, str(item["question"]), str(item["gold_doc_id"]), texts, errors)


def check_question_text(questions: list[dict], errors: list[str]) -> None:
    """ひらがなのみ・ASCII のみ・日本語・短すぎる質問・重複を確認する。"""
    seen: dict[str, str] = {}
    for item in questions:
        qid, kind, question = item.get("qid"), item.get("kind"), str(item.get("question", ""))
        if kind == "kana" and not KANA_RE.match(question):
            errors.append(f"{qid}: kana の質問はひらがな（と長音符・句読点）だけにしてください")
        if kind == "english" and (not question.isascii() or not re.search(r"[A-Za-z]{3}", question)):
            errors.append(f"{qid}: english の質問は ASCII の英文にしてください")
        if kind != "english" and question.isascii():
            errors.append(f"{qid}: 日本語の質問に日本語の文字がありません")
        if kind == "too_short" and len(norm(question)) > TOO_SHORT_MAX:
            errors.append(f"{qid}: too_short の質問は {TOO_SHORT_MAX} 文字以内にしてください")
        if kind != "too_short" and len(norm(question)) <= TOO_SHORT_MAX:
            errors.append(f"{qid}: 質問が短すぎます（too_short 以外）")
        key = norm(question)
        if key in seen:
            errors.append(f"{qid}: 質問が {seen[key]} と重複しています")
        seen[key] = str(qid)


def check_no_copy(questions: list[dict], texts: dict[str, str], errors: list[str]) -> None:
    """質問が正解文書の文をコピーしていないこと、言い換え質問が文書の表現に頼りすぎないことを確認する。"""
    for item in questions:
        gold = item.get("gold_doc_id")
        if gold not in texts:
            continue
        run = longest_common_run(norm(str(item["question"])), norm(texts[gold]))
        if run > MAX_COPY_RUN:
            errors.append(f"{item['qid']}: 質問が正解文書と {run} 文字連続で一致しています（文のコピー）")
        if item.get("kind") == "paraphrase" and run > MAX_PARAPHRASE_RUN:
            errors.append(f"{item['qid']}: 言い換え質問が文書の表現を {run} 文字そのまま使っています")


def check_readme(raw: dict[str, bytes], errors: list[str]) -> None:
    """README.md の文書一覧表に各ファイル名と正しいバイト数があるか確認する。"""
    path = ROOT / "README.md"
    try:
        readme = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        errors.append(f"README.md を読めません: {exc}")
        return
    lines = readme.splitlines()
    for name, data in raw.items():
        rows = [line for line in lines if name in line and line.startswith("|")]
        size = len(data)
        if not any(str(size) in row or f"{size:,}" in row for row in rows):
            errors.append(f"README.md の表に {name} と正しいバイト数 {size} がありません")
    for word in ("NFKC", "2026-12-06"):
        if word not in readme:
            errors.append(f"README.md に「{word}」の記載がありません")


def check_self(errors: list[str]) -> None:
    """このスクリプト自身の関数が60行未満で、すべて型注釈付きであることを確認する。"""
    source = Path(__file__).read_text(encoding="utf-8")
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        length = (node.end_lineno or node.lineno) - node.lineno + 1
        if length >= MAX_FUNCTION_LINES:
            errors.append(f"check_questions.py: 関数 {node.name} が {length} 行あります")
        args = node.args
        every = args.posonlyargs + args.args + args.kwonlyargs
        every += [a for a in (args.vararg, args.kwarg) if a is not None]
        if node.returns is None or any(a.annotation is None for a in every):
            errors.append(f"check_questions.py: 関数 {node.name} に型注釈がありません")


def print_summary(raw: dict[str, bytes], questions: list[dict]) -> None:
    """文書ごとのバイト数と質問数を表示する。"""
    for name, data in sorted(raw.items()):
        print(f"{len(data):>7,} バイト  {name}")
    print(f"合計 {len(raw)} ファイル、{sum(len(d) for d in raw.values()):,} バイト")
    print(f"質問 {len(questions)} 件")


def main() -> int:
    """すべての検査を実行し、結果を表示して終了コードを返す。"""
    errors: list[str] = []
    raw = load_docs(errors)
    texts = decode_docs(raw, errors)
    check_sizes(raw, texts, errors)
    check_rule_formats(texts, errors)
    check_html_and_faq(texts, errors)
    restricted = find_restricted(texts, errors)
    check_groups(restricted, errors)
    questions = load_questions(errors)
    check_fields(questions, errors)
    check_kind_counts(questions, errors)
    check_expect_lang(questions, errors)
    check_gold_rules(questions, texts, restricted, errors)
    check_answers(questions, texts, errors)
    check_question_text(questions, errors)
    check_no_copy(questions, texts, errors)
    check_readme(raw, errors)
    check_self(errors)
    print_summary(raw, questions)
    for message in errors:
        print(f"NG: {message}")
    print("すべての検査に合格しました。" if not errors else f"{len(errors)} 件の違反があります。")
    return 0 if not errors else 1


if __name__ == "__main__":
    sys.exit(main())
