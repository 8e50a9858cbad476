"""/campaign export's file: gzip-compressed, refused with its size over the limit
Discord sets, and read back by the importer whether compressed or not."""

from __future__ import annotations

import gzip
import json
import random
import re

import pytest

from bot.db.engine import Database
from bot.services.kit.errors import InvalidValue, TooLarge
from bot.services.rolling.rolls import roll_dice
from bot.services.store.campaigns import CampaignView
from bot.services.trust import export
from tests.services.helpers import CHANNEL, GUILD, gm_caller


async def _big_rolls(db: Database, count: int) -> None:
    """``count`` rolls of 1000d10000 in the campaign: each die is kept in the ledger."""
    rng = random.Random(19)
    for _ in range(count):
        await roll_dice(db, rng, gm_caller(), "1000d10000", request="/roll dice:1000d10000")


async def test_the_file_is_gzip_of_the_export_and_much_smaller(
    db: Database, pd_campaign: CampaignView
) -> None:
    await _big_rolls(db, 3)
    exported = await export.export_for_gm(db, gm_caller(), size_limit=25 * 2**20)
    assert exported.filename.endswith(".json.gz")
    data = json.loads(gzip.decompress(exported.content))
    whole = await export.export_campaigns(db, campaign_id=pd_campaign.id, redact_private=True)
    data.pop("exported_at"), whole.pop("exported_at")
    assert data == whole
    plain = len(export.dumps(whole).encode())
    assert len(exported.content) * 2 < plain  # a ledger of dice compresses well


async def test_over_the_limit_it_says_the_size_and_the_operators_way(
    db: Database, pd_campaign: CampaignView
) -> None:
    await _big_rolls(db, 2)
    fits = await export.export_for_gm(db, gm_caller(), size_limit=25 * 2**20)
    size = len(fits.content)  # each export differs only in its timestamp: a byte or two
    assert len((await export.export_for_gm(db, gm_caller(), size_limit=size + 16)).content) > 0
    limit = size // 2
    with pytest.raises(TooLarge) as refused:
        await export.export_for_gm(db, gm_caller(), size_limit=limit)
    message = refused.value.message
    assert f"{export.size_text(limit)} Discord lets this server receive" in message
    assert re.search(r"export is \d+ KB compressed", message)
    assert f"pbp-dice export --guild {GUILD} --campaign {pd_campaign.id}" in message


async def test_the_importer_reads_compressed_and_plain_files(
    db: Database, pd_campaign: CampaignView
) -> None:
    await _big_rolls(db, 1)
    data = await export.export_campaigns(db, campaign_id=pd_campaign.id)
    as_text = export.dumps(data).encode()
    assert export.load(export.compress(data)) == export.load(as_text) == json.loads(as_text)
    [moved] = await export.import_campaigns(
        db, export.load(export.compress(data)), guild_id=GUILD, channel_id=CHANNEL + 7
    )
    assert moved.channel_id == CHANNEL + 7 and moved.rows["ledger"] == 1


@pytest.mark.parametrize(
    ("raw", "says"),
    [
        (gzip.compress(b'{"format": 1}', mtime=0)[:-6], "damaged gzip"),
        (gzip.compress(b"not json", mtime=0), "is not JSON"),
        (b"\xff\xfe{}", "not UTF-8"),
        (b'{"format": ', "is not JSON"),
    ],
)
def test_a_broken_file_is_refused_in_words(raw: bytes, says: str) -> None:
    with pytest.raises(InvalidValue) as refused:
        export.load(raw, "campaign.json.gz")
    assert says in refused.value.message and "campaign.json.gz" in refused.value.message
