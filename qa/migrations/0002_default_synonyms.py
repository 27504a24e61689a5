from __future__ import annotations

from django.db import migrations

# A starting dictionary; reviewers and owners edit it in the admin.
DEFAULT_SYNONYMS = {
    "有給": "有給休暇, 年次有給休暇, 年休",
    "年休": "有給休暇, 年次有給休暇",
    "休み": "休暇, 有給休暇",
    "経費": "精算, 領収書, 経費精算",
    "立替": "立替金, 経費精算",
    "交通費": "旅費, 精算, 定期券",
    "出張": "出張旅費, 日当, 宿泊",
    "在宅": "リモートワーク, テレワーク, 在宅勤務",
    "テレワーク": "リモートワーク, 在宅勤務",
    "リモート": "リモートワーク, 在宅勤務",
    "パスワード": "認証, 多要素認証",
    "パソコン": "PC, 端末",
    "ノートPC": "PC, 端末",
    "残業": "時間外労働, 36協定",
    "育休": "育児休業",
    "産休": "産前産後休業",
    "介護": "介護休業, 介護休暇",
    "ネット": "Wi-Fi, VPN, ネットワーク",
    "無線LAN": "Wi-Fi",
    "評価": "人事評価, 考課",
    "遅刻": "勤怠, 遅延",
    "給料": "給与, 賃金",
    "レシート": "領収書",
    "会食": "接待交際費, 接待",
    "飲み会": "接待交際費, 懇親会",
    "お昼": "昼休み, 休憩時間",
    "昼休み": "休憩時間",
    "休憩": "休憩時間",
    "調子がおかしい": "不具合, 故障",
    "壊れ": "故障, 不具合",
    "PC": "パソコン, 端末",
    "ボーナス": "賞与",
    "引っ越し": "住所変更, 転居",
    "辞め": "退職",
    "ホテル": "宿泊, 宿泊費",
    "新幹線": "交通費, 出張",
    "タクシー": "交通費",
}


def add(apps, schema_editor) -> None:
    SynonymEntry = apps.get_model("qa", "SynonymEntry")
    for term, expansions in DEFAULT_SYNONYMS.items():
        SynonymEntry.objects.get_or_create(term=term, defaults={"expansions": expansions})


class Migration(migrations.Migration):
    dependencies = [("qa", "0001_initial")]
    operations = [migrations.RunPython(add, migrations.RunPython.noop)]
