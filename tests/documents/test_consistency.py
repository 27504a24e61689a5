"""documents.consistency: which index entries disagree with the live chunks (pure, no database)."""

from __future__ import annotations

from documents.consistency import DenseEntry, KeywordEntry, LiveChunk, compare

LIVE = {
    1: LiveChunk(document_id=10, version_id=100, keyword_body="出 張 出張"),
    2: LiveChunk(document_id=10, version_id=100, keyword_body="宿 泊 宿泊"),
    3: LiveChunk(document_id=20, version_id=200, keyword_body="食 堂 食堂"),
}
DENSE = {cid: DenseEntry(document_id=c.document_id, version_id=c.version_id) for cid, c in LIVE.items()}
KEYWORD = {cid: KeywordEntry(version_id=c.version_id, body=c.keyword_body) for cid, c in LIVE.items()}
VERSIONS = {100: 10, 99: 10, 200: 20, 300: 30}


def test_indexes_matching_the_live_chunks_report_nothing():
    assert compare(live=LIVE, dense=DENSE, keyword=KEYWORD, version_documents=VERSIONS) == []


def test_a_lost_dense_index_reports_every_live_chunk_missing_by_document():
    drifts = compare(live=LIVE, dense={}, keyword=KEYWORD, version_documents=VERSIONS)

    assert [(d.document_id, d.dense_missing) for d in drifts] == [(10, [1, 2]), (20, [3])]
    assert all(d.needs_reindex and not d.keyword_missing for d in drifts)


def test_entries_of_a_replaced_version_are_extra_but_those_being_indexed_are_not():
    dense = {**DENSE, 7: DenseEntry(document_id=10, version_id=99), 8: DenseEntry(document_id=30, version_id=300)}
    keyword = {**KEYWORD, 7: KeywordEntry(version_id=99, body="x"), 8: KeywordEntry(version_id=300, body="y")}

    drifts = compare(live=LIVE, dense=dense, keyword=keyword, version_documents=VERSIONS, in_flight_versions={300})

    assert [(d.document_id, d.dense_extra, d.keyword_extra) for d in drifts] == [(10, [7], [7])]
    assert not drifts[0].needs_reindex  # removing the extra entries is enough


def test_entries_of_a_deleted_document_are_grouped_under_no_document():
    dense = {**DENSE, 9: DenseEntry(document_id=40, version_id=400)}
    keyword = {**KEYWORD, 9: KeywordEntry(version_id=400, body="z")}

    drifts = compare(live=LIVE, dense=dense, keyword=keyword, version_documents=VERSIONS)

    assert [(d.document_id, d.dense_extra, d.keyword_extra) for d in drifts] == [(None, [9], [9])]


def test_wrong_metadata_changed_text_and_an_old_model_are_stale():
    dense = {**DENSE, 1: DenseEntry(document_id=10, version_id=99)}
    keyword = {**KEYWORD, 2: KeywordEntry(version_id=100, body="古 い 古い")}

    drifts = compare(live=LIVE, dense=dense, keyword=keyword, version_documents=VERSIONS, outdated_versions={200})

    by_document = {d.document_id: d for d in drifts}
    assert by_document[10].dense_stale == [1] and by_document[10].keyword_stale == [2]
    assert by_document[20].dense_stale == [3] and by_document[20].keyword_stale == []
    assert by_document[10].counts()["dense_stale"] == 1
