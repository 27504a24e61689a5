"""Everyday Japanese → the words company rules are written in.

Employees ask in their own words (「親の面倒を見る」「家で仕事」「スマホ」「入館用のカード」),
while rules say 介護, 在宅勤務, スマートフォン, 社員証. The small offline model
links such pairs only weakly and the keyword index not at all, so a
paraphrased question missed the one chunk that answers it. These entries are
workplace vocabulary in general, not the demo corpus's sentences: a term is
what people say, its expansions are the terms rules of any company use.
Expansions widen recall; in sentence choice they count a quarter of the
question's own words (qa.providers.extractive). Reviewers and owners edit them in the admin;
an existing term is left as it is.
"""

from django.db import migrations

EVERYDAY_WORDS = {
    # family, leave and life events
    "親の面倒": "介護, 介護休業, 介護休暇",
    "親の世話": "介護, 介護休業, 介護休暇",
    "看病": "介護, 看護休暇",
    "赤ちゃん": "出産, 出生, 育児",
    "子どもが生まれ": "出産, 出生, 出産祝金",
    "子供が生まれ": "出産, 出生, 出産祝金",
    "生まれたら": "出産, 出生",
    "子育て": "育児, 育児休業",
    "結婚したら": "結婚, 慶弔",
    "お葬式": "忌引, 慶弔, 弔慰金",
    "亡くなっ": "死亡, 弔慰金, 忌引",
    "風邪": "病気, 体調不良",
    "体調が悪": "体調不良, 病気",
    "休みを取": "休暇, 取得, 申請",
    "有休": "有給休暇, 年次有給休暇",
    "家賃": "住宅手当, 賃貸住宅",
    "合言葉": "パスワード",
    "ログイン": "サインイン, アカウント, パスワード",
    "打ち間違え": "誤る, 誤入力",
    # working place and hours
    "家で仕事": "在宅勤務, リモートワーク",
    "家で働": "在宅勤務, リモートワーク",
    "家から": "在宅勤務, リモートワーク, 社外",
    "自宅": "在宅勤務, リモートワーク",
    "スタバ": "カフェ, 社外",
    "喫茶店": "カフェ, 社外",
    "外で仕事": "社外, カフェ, 在宅勤務",
    "早く帰": "ノー残業デー, 定時退社, 早退",
    "定時": "始業, 終業, 勤務時間",
    "最初の日": "初日",
    "初出社": "初日, 入社初日",
    "何時に行け": "始業時刻, 初日",
    "給料日": "給与, 支払, 払い",
    "お給料": "給与",
    # people and where to turn
    "上司": "上長, 管理職",
    "怒鳴": "ハラスメント, パワーハラスメント, 相談窓口",
    "いじめ": "ハラスメント, 相談窓口",
    "嫌がらせ": "ハラスメント, 相談窓口",
    "セクハラ": "ハラスメント, セクシュアルハラスメント",
    "パワハラ": "ハラスメント, パワーハラスメント",
    "誰に話せば": "相談窓口, 窓口",
    "誰に相談": "相談窓口, 窓口",
    "お客さん": "顧客, 取引先, 本人",
    # equipment and security
    "スマホ": "スマートフォン, 携帯電話",
    "携帯": "スマートフォン, 携帯電話",
    "自分の": "私物, 個人",
    "画面": "モニター, ディスプレイ",
    "借りられ": "貸与, 貸出, 申請",
    "借り": "貸与, 貸出",
    "置き忘れ": "紛失, 盗難",
    "なくし": "紛失",
    "無くし": "紛失",
    "盗まれ": "盗難, 紛失",
    "壊し": "故障, 破損",
    "弁償": "負担, 修理費",
    "アプリ": "ソフトウェア, クライアント, アプリケーション",
    "つなぐ": "接続",
    "つなが": "接続",
    "勝手に切れ": "自動的に切断, 切断, タイムアウト",
    "切れた": "切断, タイムアウト",
    "放っておい": "通信がない, 無操作, 自動的に切断",
    "データを消": "消去, 削除, 個人情報",
    "私のデータ": "個人情報, 本人",
    "ウイルス": "マルウェア, 感染",
    "怪しいメール": "不審なメール, 標的型, 報告",
    # office and money
    "入館用のカード": "社員証, 入館証",
    "入館カード": "社員証, 入館証",
    "打ち合わせ": "会議, 会議室",
    "ミーティング": "会議, 会議室",
    "部屋を押さえ": "会議室, 予約",
    "押さえられ": "予約",
    "ランチ": "昼食, 食堂",
    "社食": "食堂, 社員食堂",
    "財布": "現金, 支払い",
    "飛行機": "航空機, 航空券",
    "先に会社から": "仮払い, 仮払金",
    "前もって": "事前, 仮払い",
    "立て替え": "立替, 精算",
    "締め切り": "期限, 申請期限",
    "締切": "期限, 申請期限",
    "お金が出る": "支給, 補助, 手当, 祝金",
    "お金はかかる": "費用, 手数料, 負担",
}


def add(apps, schema_editor) -> None:
    SynonymEntry = apps.get_model("qa", "SynonymEntry")
    for term, expansions in EVERYDAY_WORDS.items():
        SynonymEntry.objects.get_or_create(term=term, defaults={"expansions": expansions})


class Migration(migrations.Migration):
    dependencies = [("qa", "0007_answer_queue_name")]
    operations = [migrations.RunPython(add, migrations.RunPython.noop)]
