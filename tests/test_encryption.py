"""Encrypted metadata (docs/encryption.md): a key per index and a footer key, on real Parquet
modular encryption with Skipstone's in-memory KMS. Each "user" is a session of its own over the
shared SparkContext, holding some keys (and an access token of its own, as Parquet tells KMS
users apart by token); every query is checked against the same query with skipping off."""
from __future__ import annotations

import base64
import json
import os
import random
import shutil
import struct
import uuid
from typing import Any

import pytest

import skipstone
from conftest import normalized, only_dataset, run_both_ways
from skipstone import MinMax, Skipstone, SkipstoneError, ValueList

KEYS = {name: base64.b64encode(bytes([n]) * 16).decode() for n, name in enumerate(
    ["k_footer", "k_temp", "k_city", "k_temp_2", "k_footer_2", "k_ssn", "k_data_footer", "k_region"], start=1)}
WRONG = base64.b64encode(bytes([99]) * 16).decode()

CITIES = [f"city{c:02d}" for c in range(8)]


def keyed(base: Any, *held: str, wrong: tuple[str, ...] = (), ttl: str = "3600") -> Any:
    """A session of its own that holds the keys ``held`` (``wrong``: those ids, other bytes)."""
    session = base.newSession()
    session.conf.set("parquet.crypto.factory.class", "org.apache.parquet.crypto.keytools.PropertiesDrivenCryptoFactory")
    session.conf.set("parquet.encryption.kms.client.class", "io.skipstone.encryption.InMemoryKms")
    session.conf.set("parquet.encryption.key.access.token", f"user-{uuid.uuid4()}")
    session.conf.set("parquet.encryption.key.list",
                     ", ".join(f"{k}:{WRONG if k in wrong else KEYS[k]}" for k in held + wrong))
    session.conf.set("spark.skipstone.metadataCacheTtlSeconds", ttl)
    return session


def rows() -> list[tuple[int, str, float]]:
    """Eight cities, 50 rows each; each city's temperatures in a range of their own."""
    return [(i, CITIES[i // 50], 1000.25 + (i // 50) * 10 + (i % 7)) for i in range(400)]


def write_weather(session: Any, path: str) -> None:
    (session.createDataFrame(rows(), "id int, city string, temp double")
     .repartitionByRange(8, "city").sortWithinPartitions("id").write.parquet(path))


@pytest.fixture(scope="module")
def owner(spark_context_session) -> Any:
    """Who builds: holds every key."""
    return keyed(spark_context_session, *KEYS)


@pytest.fixture(scope="module")
def weather(owner, tmp_path_factory) -> str:
    """MinMax(temp) under k_temp, ValueList(city) under k_city, MinMax(id) under the footer key."""
    root = str(tmp_path_factory.mktemp("encrypted") / "weather")
    write_weather(owner, root)
    Skipstone.for_path(owner, root).build(MinMax("temp").encrypted_with("k_temp"),
                                          ValueList("city").encrypted_with("k_city"), MinMax("id"), footer_key="k_footer")
    return root


@pytest.fixture(scope="module")
def plain_twin(owner, weather, tmp_path_factory) -> str:
    """The same data files, indexed the same way without encryption."""
    root = str(tmp_path_factory.mktemp("plaintext") / "weather")
    shutil.copytree(weather, root, ignore=shutil.ignore_patterns("_skipstone"))
    Skipstone.for_path(owner, root).build(MinMax("temp"), ValueList("city"), MinMax("id"))
    return root


def query(root: str, where: str) -> str:
    return f"SELECT id, city, temp FROM parquet.`{root}` WHERE {where}"


def only_dataset(stats: skipstone.QueryStats) -> skipstone.DatasetStats:
    (dataset,) = stats.per_dataset
    return dataset


def missing(index: str, key: str) -> str:
    return f"{index} not used: key '{key}' is not available to this session"


CITY = "ValueList(city, max_size=1000)"


def test_a_session_with_every_key_skips_as_the_plaintext_index_does(owner, weather, plain_twin):
    for where in ["city = 'city03'", "temp > 1065", "city IN ('city01', 'city06') AND id < 300"]:
        rows_enc, enc = run_both_ways(owner, query(weather, where))
        rows_plain, plain = run_both_ways(owner, query(plain_twin, where))
        assert rows_enc == rows_plain
        assert only_dataset(enc).files_skipped == only_dataset(plain).files_skipped > 0
        assert only_dataset(enc).unanswered == only_dataset(plain).unanswered


def test_a_session_with_one_index_key_uses_it_and_says_why_it_cannot_use_the_other(spark_context_session, owner, weather):
    temp_only = keyed(spark_context_session, "k_footer", "k_temp")
    _, on_temp = run_both_ways(temp_only, query(weather, "temp > 1065"))
    _, expected = run_both_ways(owner, query(weather, "temp > 1065"))
    assert only_dataset(on_temp).files_skipped == only_dataset(expected).files_skipped > 0
    _, on_city = run_both_ways(temp_only, query(weather, "city = 'city03'"))
    assert only_dataset(on_city).files_skipped == 0
    assert missing(CITY, "k_city") in only_dataset(on_city).unanswered
    assert CITY not in only_dataset(on_city).skipped_by_index


def test_sessions_without_the_footer_key_or_any_key_read_everything_and_answer_right(spark_context_session, weather):
    for held in [(), ("k_temp", "k_city")]:
        session = keyed(spark_context_session, *held)
        found, stats = run_both_ways(session, query(weather, "city = 'city03' AND temp > 1030"))
        assert len(found) == 50
        assert only_dataset(stats).files_skipped == 0 and only_dataset(stats).files_unindexed == only_dataset(stats).files_total
        assert f"MinMax(temp) not used: the metadata's footer key 'k_footer' is not available to this session" \
            in only_dataset(stats).unanswered


def test_a_wrong_key_under_the_right_id_is_no_key(spark_context_session, weather):
    wrong_city = keyed(spark_context_session, "k_footer", "k_temp", wrong=("k_city",))
    found, stats = run_both_ways(wrong_city, query(weather, "city = 'city03'"))
    assert len(found) == 50 and only_dataset(stats).files_skipped == 0
    assert missing(CITY, "k_city") in only_dataset(stats).unanswered
    wrong_footer = keyed(spark_context_session, "k_temp", "k_city", wrong=("k_footer",))
    _, stats = run_both_ways(wrong_footer, query(weather, "temp > 1065"))
    assert only_dataset(stats).files_skipped == 0


def test_the_cache_never_hands_one_sessions_decrypted_metadata_to_a_session_without_the_key(
        spark_context_session, owner, weather):
    temp_only = keyed(spark_context_session, "k_footer", "k_temp")
    city = query(weather, "city = 'city03'")
    for session, skips in [(owner, True), (temp_only, False), (owner, True), (temp_only, False)]:
        _, stats = run_both_ways(session, city)
        assert (only_dataset(stats).files_skipped > 0) == skips
    cached = json.loads(spark_context_session._jvm.io.skipstone.metadata.MetadataCache.describe())
    held = [set(v["bytesByIndex"]) for v in cached["versions"] if weather in v["dir"]]
    # one copy per access: the one-key session's copy holds no column of the index it cannot open
    assert {frozenset({"base", "MinMax(temp)", CITY, "MinMax(id)"}),
            frozenset({"base", "MinMax(temp)", "MinMax(id)"})} <= {frozenset(h) for h in held}


def test_skipping_on_and_off_agree_over_random_predicates_for_every_set_of_keys(spark_context_session, owner, weather):
    pick = random.Random(26)
    leaves = [lambda: f"city = '{pick.choice(CITIES)}'", lambda: f"city IN ('{pick.choice(CITIES)}', '{pick.choice(CITIES)}')",
              lambda: f"temp {pick.choice(['<', '>', '<=', '>='])} {pick.uniform(995, 1085):.2f}",
              lambda: f"id BETWEEN {pick.randrange(400)} AND {pick.randrange(400)}", lambda: f"NOT (city < '{pick.choice(CITIES)}')"]

    def predicate(depth: int = 0) -> str:
        if depth == 2 or pick.random() < 0.4:
            return pick.choice(leaves)()
        return f"({predicate(depth + 1)} {pick.choice(['AND', 'OR'])} {predicate(depth + 1)})"
    sessions = [owner, keyed(spark_context_session, "k_footer", "k_temp"), keyed(spark_context_session, "k_footer", "k_city")]
    for _ in range(8):
        where = predicate()
        for session in sessions:
            run_both_ways(session, query(weather, where))


@pytest.mark.files_store
def test_the_metadata_files_hold_no_value_in_plaintext(weather, plain_twin):
    values = [c.encode() for c in CITIES] + [struct.pack("<d", t) for t in {r[2] for r in rows()}]

    def found_in(root: str) -> set[bytes]:
        blobs = b"".join(open(os.path.join(folder, name), "rb").read()
                         for folder, _, names in os.walk(os.path.join(root, "_skipstone")) for name in names)
        return {v for v in values if v in blobs}
    assert found_in(plain_twin)  # the search finds plaintext metadata's values
    assert found_in(weather) == set()


def test_rotating_keys_republishes_the_metadata_and_answers_stay_right(spark_context_session, owner, tmp_path):
    root = str(tmp_path / "rotated")
    write_weather(owner, root)
    dataset = Skipstone.for_path(owner, root)
    dataset.build(MinMax("temp").encrypted_with("k_temp"), ValueList("city"), footer_key="k_footer")
    old_keys, new_keys = keyed(spark_context_session, "k_footer", "k_temp"), keyed(spark_context_session, "k_footer_2", "k_temp_2")
    where = query(root, "temp > 1065 AND city >= 'city05'")
    assert only_dataset(run_both_ways(old_keys, where)[1]).files_skipped > 0
    dataset.rotate_keys({MinMax("temp"): "k_temp_2"}, footer_key="k_footer_2")
    described = {r["index"]: (r["key"], r["footer_key"]) for r in dataset.describe().collect()}
    assert described == {"MinMax(temp)": ("k_temp_2", "k_footer_2"), CITY: (None, "k_footer_2")}
    _, stats = run_both_ways(old_keys, where)
    assert only_dataset(stats).files_skipped == 0
    _, stats = run_both_ways(new_keys, where)
    assert only_dataset(stats).files_skipped > 0
    assert only_dataset(stats).skipped_by_index["MinMax(temp)"] > 0


def test_changing_the_index_needs_every_key_of_its_metadata(spark_context_session, weather):
    temp_only = keyed(spark_context_session, "k_footer", "k_temp")
    with pytest.raises(Exception, match="needs every key it is encrypted with .*cannot use key 'k_city'"):
        Skipstone.for_path(temp_only, weather).refresh()


def test_an_encrypted_index_needs_a_footer_key(owner, tmp_path):
    root = str(tmp_path / "no_footer")
    write_weather(owner, root)
    with pytest.raises(Exception, match="needs a footer key"):
        Skipstone.for_path(owner, root).build(MinMax("temp").encrypted_with("k_temp"))
    with pytest.raises(SkipstoneError, match="already encrypted"):
        MinMax("temp").encrypted_with("k_temp").encrypted_with("k_city")


def test_sql_encrypts_each_index_with_its_key_and_describe_shows_the_keys(owner, tmp_path):
    root = str(tmp_path / "sql")
    write_weather(owner, root)
    owner.sql(f"CREATE SKIPPING INDEX ON parquet.`{root}` (MINMAX(temp) ENCRYPTED WITH KEY 'k_temp', "
              f"VALUELIST(city) OPTIONS (max_size 20)) WITH FOOTER KEY 'k_footer'")
    files = len([f for f in os.listdir(root) if f.endswith(".parquet")])
    described = owner.sql(f"DESCRIBE SKIPPING INDEX ON parquet.`{root}`").select("index", "key", "footer_key", "files_indexed")
    assert [tuple(r) for r in described.collect()] == [("MinMax(temp)", "k_temp", "k_footer", files),
                                                        ("ValueList(city, max_size=20)", None, "k_footer", files)]
    _, stats = run_both_ways(owner, query(root, "temp > 1065"))
    assert only_dataset(stats).files_skipped > 0


# -- data whose Parquet files are encrypted ---------------------------------------------------

@pytest.fixture(scope="module")
def patients(owner, tmp_path_factory) -> str:
    """Data files with column ssn encrypted under k_ssn (footer k_data_footer)."""
    root = str(tmp_path_factory.mktemp("patients") / "patients")
    data = [(i, f"{100 + i // 25:03d}-00-{i:04d}", i % 90) for i in range(200)]
    (owner.createDataFrame(data, "id int, ssn string, age int").repartitionByRange(8, "ssn")
     .write.option("parquet.encryption.column.keys", "k_ssn:ssn").option("parquet.encryption.footer.key", "k_data_footer")
     .parquet(root))
    return root


def declared(session: Any, root: str) -> Any:
    """The data as read with its column keys declared (which column is under which key)."""
    return session.read.option("parquet.encryption.column.keys", "k_ssn:ssn").parquet(root)


def test_an_index_on_an_encrypted_data_column_takes_the_columns_key(owner, patients):
    dataset = Skipstone.for_dataframe(declared(owner, patients))
    dataset.build(MinMax("ssn"), MinMax("age"), footer_key="k_footer")
    assert {r["index"]: r["key"] for r in dataset.describe().collect()} == {"MinMax(ssn)": "k_ssn", "MinMax(age)": None}
    _, stats = run_both_ways(owner, f"SELECT id FROM parquet.`{patients}` WHERE ssn = '103-00-0080'")
    assert only_dataset(stats).files_skipped > 0


def test_an_index_on_an_encrypted_data_column_under_another_key_or_none_known_is_refused(owner, patients):
    with pytest.raises(Exception, match="column ssn is encrypted in its files with key 'k_ssn'; its index must be "
                                        "encrypted with that key, not 'k_city'"):
        Skipstone.for_dataframe(declared(owner, patients)).build(MinMax("ssn").encrypted_with("k_city"), footer_key="k_footer")
    with pytest.raises(Exception, match="column ssn is encrypted in its files, so its index must be encrypted with "
                                        "the column's key"):
        Skipstone.for_path(owner, patients).build(MinMax("ssn"), footer_key="k_footer")


def test_an_index_on_an_encrypted_data_column_without_its_key_is_refused(spark_context_session, patients):
    no_ssn_key = keyed(spark_context_session, "k_data_footer", "k_footer")
    with pytest.raises(Exception, match="MinMax\\(ssn\\) cannot be built on .*: column ssn is encrypted in its files "
                                        "with key 'k_ssn' and this session cannot decrypt it"):
        Skipstone.for_dataframe(declared(no_ssn_key, patients)).build(MinMax("ssn"), footer_key="k_footer")
    # its other columns can be indexed
    Skipstone.for_dataframe(declared(no_ssn_key, patients)).build(MinMax("age"), footer_key="k_footer")


@pytest.mark.files_store
def test_encryption_settings_of_a_read_are_never_recorded_nor_compared(spark_context_session, owner, weather, tmp_path):
    root = str(tmp_path / "options")
    write_weather(owner, root)
    secret = f"token-{uuid.uuid4()}"
    read = owner.read.option("parquet.encryption.key.access.token", secret).parquet(root)
    Skipstone.for_dataframe(read).build(MinMax("temp").encrypted_with("k_temp"), footer_key="k_footer")
    (index_json,) = [os.path.join(folder, "index.json") for folder, _, names in os.walk(os.path.join(root, "_skipstone"))
                     if "index.json" in names]
    assert secret not in open(index_json).read()
    another = keyed(spark_context_session, "k_footer", "k_temp")
    _, stats = run_both_ways(another, query(root, "temp > 1065"))
    assert only_dataset(stats).files_skipped > 0


# -- skipping instead of revealing partitions (paper III-C) ----------------------------------

def test_a_sensitive_column_laid_out_by_skipping_appears_in_no_path_nor_plaintext_byte(spark_context_session, owner, tmp_path):
    root = str(tmp_path / "claims")
    regions = ["zurich-north", "geneva-lake", "basel-rhine", "bern-old-town"]
    data = [(i, regions[i % 4], float(i)) for i in range(400)]
    # clustered by region, one region per file, but not partitioned: no region=... directories
    (owner.createDataFrame(data, "id int, region string, amount double").repartitionByRange(4, "region")
     .write.option("parquet.encryption.column.keys", "k_region:region").option("parquet.encryption.footer.key", "k_data_footer")
     .parquet(root))
    Skipstone.for_dataframe(declared_region(owner, root)).build(ValueList("region"), footer_key="k_footer")
    found, stats = run_both_ways(owner, f"SELECT id FROM parquet.`{root}` WHERE region = 'geneva-lake'")
    assert len(found) == 100 and only_dataset(stats).files_skipped == 3
    paths = [os.path.join(folder, name) for folder, dirs, names in os.walk(root) for name in dirs + names]
    blobs = b"".join(open(p, "rb").read() for p in paths if os.path.isfile(p))
    for region in regions:
        assert not any(region in p for p in paths)
        assert region.encode() not in blobs
    # a session without the region's key answers right, reading everything
    no_region_key = keyed(spark_context_session, "k_data_footer", "k_footer")
    assert normalized(no_region_key.sql(f"SELECT id FROM parquet.`{root}` WHERE amount < 10").collect()) == \
        [(i,) for i in range(10)]


def declared_region(session: Any, root: str) -> Any:
    return session.read.option("parquet.encryption.column.keys", "k_region:region").parquet(root)
